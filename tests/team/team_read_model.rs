//! The team's read model on a real PostgreSQL server (a scratch one per test, from
//! `paydesk-testpg`): the order store's scenarios run on SQLite and on PostgreSQL alike
//! (the same trait, the same answers), the other cache tables likewise, the team's roles
//! as the database holds them (everyone reads, only a signer writes, saved filters are
//! each member's own), `cache_read` and `cache_atomic` as one transaction, and a signer's
//! desk syncing the sandbox into the team's database for a viewer to read.

#![allow(clippy::unwrap_used)]

#[path = "../../crates/core/tests/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use paydesk_core::store::Store;
use paydesk_core::store::prelude::*;
use paydesk_core::{CoreError, Desk, Endpoint, Profile};
use paydesk_gateway::wire::OrderListItem;
use paydesk_store_pg::cache::{
    PgBalances, PgCards, PgNotifications, PgReversals, PgReviews, PgSyncState, PgViews,
};
use paydesk_store_pg::orders::PgOrders;
use paydesk_store_pg::{PgConfig, PgLink, init_team};
use paydesk_store_sqlite::balances::BalanceSnapshot;
use paydesk_store_sqlite::balances::Balances;
use paydesk_store_sqlite::cards::{CardOperations, NewCardOperation};
use paydesk_store_sqlite::notifications::Notifications;
use paydesk_store_sqlite::orders::{
    self, MadeOrder, OrderFilter, OrderKind, Orders, SortKey, Upsert,
};
use paydesk_store_sqlite::reversals::{ChargebackSeen, RefundSeen, Reversals};
use paydesk_store_sqlite::reviews::{Outcome, Reviews};
use paydesk_store_sqlite::sync_state::{PageDone, SyncState};
use paydesk_store_sqlite::views::{SavedViews, Screen};
use paydesk_store_sqlite::{self as db, Durability};
use paydesk_testpg::TestPg;
use rusqlite::Connection;

const DB: &str = "team";
const MER: i64 = common::MER as i64;
const PASSWORD: &str = "correct-horse-battery";

fn cfg(pg: &TestPg, user: &str) -> PgConfig {
    PgConfig {
        host: pg.host().into(),
        port: pg.port(),
        database: DB.into(),
        user: user.into(),
        ca_file: String::new(),
        cert_file: String::new(),
        key_file: String::new(),
    }
}

fn connect(pg: &TestPg, user: &str, password: &str) -> PgLink {
    PgLink::connect(&cfg(pg, user), password).unwrap()
}

/// A scratch server with the team schema, and the owner's link to it.
fn team_db() -> (TestPg, PgLink) {
    let pg = TestPg::start().unwrap();
    pg.create_database(DB).unwrap();
    let owner = connect(&pg, pg.owner(), pg.owner_password());
    init_team(&owner, MER).unwrap();
    (pg, owner)
}

/// A login role granted one of the team's roles, and a link as it.
fn member(pg: &TestPg, name: &str, role: &str) -> PgLink {
    pg.psql_owner(
        DB,
        &format!("CREATE ROLE {name} LOGIN PASSWORD '{PASSWORD}'; GRANT paydesk_{role} TO {name};"),
    )
    .unwrap();
    connect(pg, name, PASSWORD)
}

fn sqlite() -> (tempfile::TempDir, Connection) {
    let dir = tempfile::tempdir().unwrap();
    let conn = db::open(&dir.path().join("cache.sqlite"), Durability::Cache).unwrap();
    (dir, conn)
}

fn item(n: usize, state: i64, currency: &str, amount: &str) -> OrderListItem {
    OrderListItem {
        state,
        mer_order_no: format!("M-{n:06}"),
        trade_no: format!("T2026{n:08}"),
        source_amount: amount.parse().unwrap(),
        source_currency: currency.into(),
        settlement_currency: currency.into(),
        ..OrderListItem::default()
    }
}

fn search(o: &dyn OrderStore, fragment: &str) -> i64 {
    o.count(&OrderFilter {
        search: Some(fragment.into()),
        ..OrderFilter::default()
    })
    .unwrap()
}

/// One batch holding new orders, cached ones and two copies of one order: the new ones
/// inserted and searchable, the cached ones updated, the copies applied in the list's
/// order, the count of orders new or changed, and the history of each.
fn a_batch_of_new_cached_and_repeated_orders(o: &dyn OrderStore, mer: u64) {
    let it = |n: usize, state: i64| OrderListItem {
        handling_fee: Some(rust_decimal::Decimal::new(5, 1)),
        source_amount: rust_decimal::Decimal::new(1234 + n as i64, 2),
        mer_order_no: format!("M2026{n:08}"),
        ..item(n, state, "USD", "0")
    };
    let cached: Vec<OrderListItem> = (0..300).step_by(3).map(|n| it(n, 2)).collect();
    assert_eq!(o.upsert_items(mer, &cached, 1_000, true).unwrap(), 100);
    assert!(
        o.record_made(
            mer,
            &MadeOrder {
                trade_no: "T202600000003".into(),
                mer_order_no: "M202600000003".into(),
                kind: OrderKind::Payout,
                method: "CLABE".into(),
                currency: "USD".into(),
                amount: rust_decimal::Decimal::new(1237, 2),
                state: Some(2),
                made_at: 500,
            },
        )
        .unwrap()
    );
    let mut items: Vec<OrderListItem> = (0..300)
        .map(|n| it(n, if n % 3 == 0 && n != 6 { 5 } else { 2 }))
        .collect();
    items.push(it(7, 5));
    items.swap(0, 150);
    items.swap(7, 290);
    let rows: Vec<Upsert<'_>> = items
        .iter()
        .map(|item| Upsert {
            item,
            created_at: 2_000,
            verified: true,
            window_end: None,
        })
        .collect();
    // 200 new, 99 cached that changed state, order 7's second copy a change.
    assert_eq!(o.upsert(mer, &rows).unwrap(), 200 + 99 + 1);
    assert_eq!(o.count_all().unwrap(), 300);
    for n in [1, 7, 299] {
        assert_eq!(search(o, &format!("2026{n:08}")), 1, "order {n}");
    }
    assert_eq!(search(o, "T2026"), 300);
    assert_eq!(
        search(o, "t2026"),
        300,
        "case-insensitive, as FTS5's trigrams"
    );
    let seven = o.get("T202600000007").unwrap().unwrap();
    assert_eq!((seven.state, seven.created_at), (5, 2_000));
    assert_eq!(
        o.history("T202600000007").unwrap(),
        vec![
            (2, 2_000, "first seen".to_string()),
            (5, seven.synced_at.unwrap(), "sync".to_string())
        ]
    );
    let three = o.get("T202600000003").unwrap().unwrap();
    assert_eq!(
        (three.state, three.created_at, three.made_at, three.kind),
        (5, 500, Some(500), Some(OrderKind::Payout))
    );
    assert_eq!(three.method, "CLABE");
    assert_eq!(three.handling_fee.as_deref(), Some("0.5"));
    assert_eq!(o.history("T202600000003").unwrap()[0].2, "made here");
    let six = o.get("T202600000006").unwrap().unwrap();
    assert_eq!((six.state, six.created_at), (2, 1_000));
    assert_eq!(o.history("T202600000006").unwrap().len(), 1);
    let one = o.get("T202600000001").unwrap().unwrap();
    assert_eq!(
        (one.source_amount.as_str(), one.handling_fee.as_deref()),
        ("12.35", Some("0.5"))
    );
    let same: Vec<Upsert<'_>> = rows
        .iter()
        .filter(|r| !(r.item.trade_no == "T202600000007" && r.item.state == 2))
        .copied()
        .collect();
    assert_eq!(o.upsert(mer, &same).unwrap(), 0, "nothing changed");

    // Listed by a window (the sync): an order cached on a day outside it moves to the
    // window's start; one inside it keeps its time (order 3, made here at 500), and an
    // order read by its number keeps its date.
    const DAY: i64 = 86_400_000;
    fn windowed(item: &OrderListItem, start: i64) -> [Upsert<'_>; 1] {
        [Upsert {
            item,
            created_at: start,
            verified: true,
            window_end: Some(start + DAY - 1),
        }]
    }
    let find = |n: &str| items.iter().find(|i| i.trade_no == n).unwrap();
    let (six, three, one) = (
        find("T202600000006"),
        find("T202600000003"),
        find("T202600000001"),
    );
    o.upsert(mer, &windowed(six, DAY)).unwrap();
    o.upsert(mer, &windowed(three, 0)).unwrap();
    o.upsert_items(mer, std::slice::from_ref(one), 5 * DAY, true)
        .unwrap();
    let day = |n: &str| o.get(n).unwrap().unwrap().created_at;
    assert_eq!(
        (
            day("T202600000006"),
            day("T202600000003"),
            day("T202600000001")
        ),
        (DAY, 500, 2_000)
    );
}

/// Filters, sorts, amounts, fragment search, export of every filtered row.
fn filters_sort_and_search(o: &dyn OrderStore, mer: u64, dir: &std::path::Path) {
    let items: Vec<OrderListItem> = (0..3000)
        .map(|n| {
            let (state, cur) = match n % 3 {
                0 => (5, "USD"),
                1 => (2, "EUR"),
                _ => (3, "USD"),
            };
            item(n, state, cur, &format!("{}.{:02}", 1 + n % 500, n % 100))
        })
        .collect();
    for (i, chunk) in items.chunks(500).enumerate() {
        let changed = o
            .upsert_items(mer, chunk, i as i64 * 86_400_000, true)
            .unwrap();
        assert_eq!(changed, chunk.len());
    }
    assert_eq!(o.upsert_items(mer, &items[..500], 999, true).unwrap(), 0);
    assert_eq!(o.get(&items[0].trade_no).unwrap().unwrap().created_at, 0);
    // Amounts keep their scale: "1.00" reads back as written.
    assert_eq!(
        o.get(&items[0].trade_no).unwrap().unwrap().source_amount,
        "1.00"
    );

    let usd_success = OrderFilter {
        states: vec![5],
        currencies: vec!["USD".into()],
        ..OrderFilter::default()
    };
    let page = o.query(&usd_success, 0, 100).unwrap();
    assert_eq!(page.total, 1000);
    assert_eq!(page.rows.len(), 100);
    assert!(
        page.rows
            .iter()
            .all(|r| r.state == 5 && r.currency == "USD")
    );
    assert!(
        page.rows
            .windows(2)
            .all(|w| w[0].created_at <= w[1].created_at)
    );
    // Several values of a list.
    let two_states = OrderFilter {
        states: vec![2, 3],
        currencies: vec!["USD".into(), "EUR".into()],
        ..OrderFilter::default()
    };
    assert_eq!(o.count(&two_states).unwrap(), 2000);
    let window = OrderFilter {
        from: Some(86_400_000),
        to: Some(3 * 86_400_000),
        ..OrderFilter::default()
    };
    assert_eq!(o.count(&window).unwrap(), 1000);

    let by_amount = OrderFilter {
        sort: SortKey::Amount,
        descending: true,
        min_amount: Some("400".into()),
        max_amount: Some("450.5".into()),
        ..OrderFilter::default()
    };
    let page = o.query(&by_amount, 0, 50).unwrap();
    let amounts: Vec<rust_decimal::Decimal> = page
        .rows
        .iter()
        .map(|r| r.source_amount.parse().unwrap())
        .collect();
    assert!(amounts.windows(2).all(|w| w[0] >= w[1]));
    assert!(
        amounts
            .iter()
            .all(|a| *a >= "400".parse().unwrap() && *a <= "450.5".parse().unwrap())
    );
    let bad = OrderFilter {
        min_amount: Some("1e3".into()),
        ..OrderFilter::default()
    };
    assert!(
        o.query(&bad, 0, 10)
            .unwrap_err()
            .to_string()
            .contains("minAmount")
    );

    // Fragment search: 6+ digits inside a trade number, the end of an order number, a
    // prefix of two characters, and the characters LIKE would take as wildcards.
    let hit = o
        .query(
            &OrderFilter {
                search: Some("001234".into()),
                ..OrderFilter::default()
            },
            0,
            10,
        )
        .unwrap();
    assert_eq!(hit.total, 1);
    assert_eq!(hit.rows[0].mer_order_no, "M-001234");
    assert_eq!(search(o, "-0029"), 100, "M-002900..M-002999");
    assert_eq!(search(o, "M-"), 3000);
    assert_eq!(search(o, "m-"), 3000);
    assert_eq!(search(o, "T2026_000"), 0);
    assert_eq!(search(o, "%"), 0);
    assert_eq!(search(o, "  "), 3000, "blank: no search");

    // Sorted by trade number in byte order, both ways.
    let by_no = o
        .query(
            &OrderFilter {
                sort: SortKey::TradeNo,
                descending: true,
                ..OrderFilter::default()
            },
            0,
            3,
        )
        .unwrap();
    let nos: Vec<&str> = by_no.rows.iter().map(|r| r.trade_no.as_str()).collect();
    assert_eq!(nos, ["T202600002999", "T202600002998", "T202600002997"]);

    // Export writes every filtered row, not one page.
    let csv_path = dir.join(format!("out-{mer}.csv"));
    let tz = chrono::FixedOffset::east_opt(8 * 3600).unwrap();
    let dict = paydesk_gateway::StateDictionary::default();
    let n = paydesk_reports::export::export(
        o,
        &usd_success,
        &csv_path,
        paydesk_core::output::Existing::Replace,
        tz,
        &dict,
        |_, _| {},
    )
    .unwrap();
    assert_eq!(n, 1000);
    let mut every = Vec::new();
    o.for_each(&usd_success, &mut |r| {
        every.push(r.trade_no.clone());
        Ok(())
    })
    .unwrap();
    assert_eq!(every.len(), 1000);

    // What the desk's other screens read.
    assert_eq!(o.distinct_currencies().unwrap(), ["EUR", "USD"]);
    assert_eq!(
        o.by_mer_order_no("M-000042").unwrap().unwrap().trade_no,
        "T202600000042"
    );
    assert!(o.by_mer_order_no("M-none").unwrap().is_none());
    assert_eq!(o.created_at("T202600000600").unwrap(), Some(86_400_000));
    assert_eq!(o.created_at("T-none").unwrap(), None);
    let open = o.open_orders(&[2, 3], 0, 86_400_000).unwrap();
    assert_eq!(open.len(), 167 + 166, "the first day's pending and failed");
    let days = o.day_figures(86_400_000).unwrap();
    assert_eq!(days.len(), 5 * 2);
    let first = &days[0];
    assert_eq!((first.day, first.currency.as_str()), (86_400_000, "EUR"));
    let eur_day_1: Vec<rust_decimal::Decimal> = items[500..1000]
        .iter()
        .filter(|i| i.source_currency == "EUR")
        .map(|i| i.source_amount)
        .collect();
    assert_eq!(first.orders, eur_day_1.len() as i64);
    let eur_day_1: rust_decimal::Decimal = eur_day_1.into_iter().sum();
    assert_eq!(first.volume, eur_day_1.normalize().to_string());
}

/// Pages deep in the set read after an anchor equal pages read by offset.
fn anchored_deep_pages(o: &dyn OrderStore, mer: u64) {
    let items: Vec<OrderListItem> = (0..25_000)
        .map(|n| {
            item(
                n,
                if n % 4 == 0 { 2 } else { 5 },
                if n % 3 == 0 { "EUR" } else { "USD" },
                &format!("{}.{:02}", n % 977, n % 100),
            )
        })
        .collect();
    for (i, chunk) in items.chunks(5000).enumerate() {
        o.upsert_items(mer, chunk, (i as i64 % 3) * 1000, true)
            .unwrap();
    }
    let filters = [
        OrderFilter::default(),
        OrderFilter {
            descending: true,
            ..OrderFilter::default()
        },
        OrderFilter {
            sort: SortKey::Amount,
            ..OrderFilter::default()
        },
        OrderFilter {
            sort: SortKey::State,
            descending: true,
            ..OrderFilter::default()
        },
        OrderFilter {
            sort: SortKey::TradeNo,
            descending: true,
            states: vec![5],
            ..OrderFilter::default()
        },
    ];
    for f in &filters {
        let anchors = o.anchors(f).unwrap();
        let total = o.count(f).unwrap();
        assert_eq!(anchors.len() as i64, total / orders::ANCHOR_EVERY);
        assert_eq!(anchors.total, total);
        for offset in [0, 9_999, 10_000, 10_050, 19_990, 20_000, total - 50] {
            let plain = o.query(f, offset, 100).unwrap();
            let anchored = o.query_anchored(f, &anchors, offset, 100).unwrap();
            assert_eq!(plain, anchored, "{f:?} at {offset}");
        }
    }
    let none = OrderFilter {
        currencies: vec!["XXX".into()],
        ..OrderFilter::default()
    };
    let anchors = o.anchors(&none).unwrap();
    assert_eq!((anchors.len(), anchors.total), (0, 0));
}

/// An order made here is cached at once; a row under its trade number with another
/// order number is someone else's; without a state nothing is cached from the journal.
fn made_orders_and_their_fees(o: &dyn OrderStore, mer: u64) {
    let theirs = item(9, 5, "MXN", "7.00");
    o.upsert_items(mer, std::slice::from_ref(&theirs), 1_795_000_000_000, true)
        .unwrap();
    let made = |trade_no: &str, state: Option<i64>| MadeOrder {
        trade_no: trade_no.into(),
        mer_order_no: "PO-MINE".into(),
        kind: OrderKind::Payout,
        method: "CLABE".into(),
        currency: "MXN".into(),
        amount: "10.00".parse().unwrap(),
        state,
        made_at: 1_795_000_123_456,
    };
    assert!(
        !o.record_made(mer, &made(&theirs.trade_no, Some(2)))
            .unwrap()
    );
    let row = o.get(&theirs.trade_no).unwrap().unwrap();
    assert_eq!(
        (row.kind, row.made_at, row.mer_order_no.as_str()),
        (None, None, theirs.mer_order_no.as_str())
    );
    assert!(!o.record_made(mer, &made("T-NEW", None)).unwrap());
    assert!(o.get("T-NEW").unwrap().is_none());
    assert!(o.record_made(mer, &made("T-NEW", Some(2))).unwrap());
    let mine = o.get("T-NEW").unwrap().unwrap();
    assert_eq!(
        (mine.state, mine.kind, mine.made_at, mine.synced_at),
        (2, Some(OrderKind::Payout), Some(1_795_000_123_456), None)
    );
    assert_eq!(mine.source_amount, "10.00");
    assert_eq!(o.history("T-NEW").unwrap()[0].2, "made here");
    // Made again (the answer seen twice): labelled, not doubled.
    assert!(o.record_made(mer, &made("T-NEW", Some(2))).unwrap());
    assert_eq!(o.count_all().unwrap(), 2);

    // The last payout's fee in a currency, as the list gave it.
    assert!(o.last_payout_fee("MXN").unwrap().is_none());
    let listed = OrderListItem {
        handling_fee: Some("1.50".parse().unwrap()),
        ..item(10, 5, "MXN", "20.00")
    };
    o.upsert_items(mer, &[listed], 1_795_000_000_000, true)
        .unwrap();
    o.record_made(
        mer,
        &MadeOrder {
            trade_no: "T202600000010".into(),
            mer_order_no: "M-000010".into(),
            ..made("", Some(5))
        },
    )
    .unwrap();
    let fee = o.last_payout_fee("MXN").unwrap().unwrap();
    assert_eq!(
        (
            fee.handling_fee.as_deref(),
            fee.fixed_fee,
            fee.mer_order_no.as_str()
        ),
        (Some("1.50"), None, "M-000010")
    );
}

/// A window read complete, then read again longer: complete only when its last page is in.
fn sync_windows(s: &dyn SyncStateStore) {
    let page = |end: i64, page_num: i64, total_pages: i64, clean: bool| PageDone {
        window_start: 0,
        window_end: end,
        page_num,
        total_pages,
        clean,
    };
    assert_eq!(s.last_synced("p").unwrap(), None);
    s.page_done("p", page(36_000_000, 1, 1, true)).unwrap();
    assert!(s.window_complete("p", 0, 36_000_000).unwrap());
    s.page_done("p", page(86_399_000, 1, 3, false)).unwrap();
    assert!(!s.window_complete("p", 0, 86_399_000).unwrap());
    assert!(!s.window_complete("p", 0, 36_000_000).unwrap());
    s.page_done("p", page(86_399_000, 2, 3, false)).unwrap();
    assert!(!s.window_complete("p", 0, 86_399_000).unwrap());
    s.page_done("p", page(86_399_000, 3, 3, true)).unwrap();
    assert!(s.window_complete("p", 0, 86_399_000).unwrap());
    s.page_done("p", page(86_399_000, 1, 3, false)).unwrap();
    assert!(s.window_complete("p", 0, 86_399_000).unwrap());
    assert!(s.last_synced("p").unwrap().is_some());
    assert_eq!(s.last_error("p").unwrap(), None);
    s.record_error("p", "the gateway timed out").unwrap();
    s.record_error("p", "the gateway refused").unwrap();
    assert_eq!(s.last_error("p").unwrap().unwrap().1, "the gateway refused");
    s.clear_error("p").unwrap();
    assert_eq!(s.last_error("p").unwrap(), None);
}

fn balances(b: &dyn BalanceStore) {
    let snap = |currency: &str, balance: &str, at: i64| BalanceSnapshot {
        currency: currency.into(),
        balance: balance.into(),
        un_checked_balance: "0.00".into(),
        total_balance: balance.into(),
        taken_at: at,
    };
    b.add(&snap("USD", "10.00", 1)).unwrap();
    b.add(&snap("USD", "12.50", 3)).unwrap();
    b.add(&snap("MXN", "100.000", 2)).unwrap();
    let latest: Vec<(String, String)> = b
        .latest()
        .unwrap()
        .into_iter()
        .map(|s| (s.currency, s.balance))
        .collect();
    assert_eq!(
        latest,
        [
            ("MXN".into(), "100.000".into()),
            ("USD".into(), "12.50".into())
        ]
    );
    let usd: Vec<i64> = b
        .history("USD")
        .unwrap()
        .iter()
        .map(|s| s.taken_at)
        .collect();
    assert_eq!(usd, [1, 3]);
}

fn what_the_desk_did(
    cards: &dyn CardStore,
    reviews: &dyn ReviewStore,
    reversals: &dyn ReversalStore,
    notes: &dyn NotificationStore,
) {
    cards
        .add(NewCardOperation {
            journal_id: 7,
            kind: "withdraw",
            card: "411111******1111",
            amount: "25.50",
            currency: "USD",
            fee: Some("1.25"),
            trade_no: Some("T-C1"),
            outcome: "accepted",
        })
        .unwrap();
    let ops = cards.latest().unwrap();
    assert_eq!(
        (
            ops[0].amount.as_str(),
            ops[0].fee.as_deref(),
            ops[0].journal_id
        ),
        ("25.50", Some("1.25"), Some(7))
    );

    let outcome = |o: &'static str| Outcome {
        reference: "R-1",
        journal_id: None,
        trade_no: "T-R1",
        info_count: 2,
        files: "a.pdf",
        outcome: o,
        request: "{\"x\":1}",
        evidence: "[]",
    };
    // What each file sent was (issue 36): kept on both backends, and not lost when a
    // later outcome comes without it.
    let sent = paydesk_core::store::reviews::FileEvidence {
        name: "a.pdf".into(),
        file_type: "22".into(),
        suffix: ".pdf".into(),
        media_type: "application/pdf".into(),
        size: 1234,
        sha256: "9f".repeat(32),
    };
    let evidence = serde_json::to_string(&[&sent]).unwrap();
    reviews
        .record(Outcome {
            evidence: &evidence,
            ..outcome("pending")
        })
        .unwrap();
    assert_eq!(reviews.pending_count().unwrap(), 1);
    assert!(reviews.latest(None).unwrap()[0].queued);
    reviews
        .record(Outcome {
            journal_id: Some(9),
            ..outcome("accepted")
        })
        .unwrap();
    assert_eq!(reviews.pending_count().unwrap(), 0);
    let all = reviews.latest(Some("T-R1")).unwrap();
    assert_eq!((all.len(), all[0].outcome.as_str()), (1, "accepted"));
    assert_eq!(all[0].evidence, vec![sent]);
    assert!(reviews.latest(Some("T-other")).unwrap().is_empty());
    assert_eq!(
        reviews.request("R-1").unwrap().as_deref(),
        Some("{\"x\":1}")
    );
    assert_eq!(reviews.request("R-none").unwrap(), None);

    let refund = |state: &'static str, fee: Option<&str>| RefundSeen {
        trade_no: "T-F1",
        refund_no: "RF-1",
        state,
        amount: Some("5.00".parse().unwrap()),
        currency: "USD",
        fee: fee.map(|f| f.parse().unwrap()),
        settle: Some(1),
        receive_amount: None,
    };
    reversals.refund(refund("1", Some("0.10"))).unwrap();
    reversals.refund_from_order_query(refund("", None)).unwrap();
    reversals
        .chargeback(ChargebackSeen {
            trade_no: "T-F2",
            amount: Some("9.99".parse().unwrap()),
            currency: "USD",
            actual_amount: None,
            actual_currency: "",
            status: "open",
        })
        .unwrap();
    let list = reversals.list(None).unwrap();
    assert_eq!(list.len(), 2);
    let r = list.iter().find(|r| r.kind == "refund").unwrap();
    assert_eq!(
        (r.state.as_str(), r.amount.as_deref(), r.fee.as_deref()),
        ("1", Some("5.00"), Some("0.10"))
    );
    assert_eq!(reversals.list(Some("T-F2")).unwrap()[0].kind, "chargeback");

    notes.add("payout", "T-N1", "{}", true).unwrap();
    notes.add("payin", "T-N2", "{}", false).unwrap();
    notes.add("payout", "T-N1", "{\"s\":5}", true).unwrap();
    let latest = notes.latest(2).unwrap();
    assert_eq!(latest.len(), 2);
    assert_eq!(latest[0].body, "{\"s\":5}");
    let of_one = notes.of_order("T-N1").unwrap();
    assert_eq!(of_one.len(), 2);
    assert!(of_one[0].id < of_one[1].id);
}

#[test]
fn the_order_store_answers_alike_on_sqlite_and_on_postgres() {
    let (_pg, owner) = team_db();
    let dir = tempfile::tempdir().unwrap();
    // Each scenario on a database of its own: a fresh SQLite file, a merchant of its own
    // on PostgreSQL (every row is keyed by its merchant).
    type Scenario = fn(&dyn OrderStore, u64, &std::path::Path);
    let scenarios: [(&str, Scenario); 4] = [
        ("batch", |o, m, _| {
            a_batch_of_new_cached_and_repeated_orders(o, m)
        }),
        ("filters", filters_sort_and_search),
        ("anchors", |o, m, _| anchored_deep_pages(o, m)),
        ("made", |o, m, _| made_orders_and_their_fees(o, m)),
    ];
    for (i, (name, scenario)) in scenarios.iter().enumerate() {
        let (_d, conn) = sqlite();
        eprintln!("{name} on SQLite");
        scenario(&Orders::on(&conn), 1, dir.path());
        let mer = 1000 + i as i64;
        eprintln!("{name} on PostgreSQL");
        scenario(&PgOrders::on(&owner, mer), mer as u64, dir.path());
    }
    // The merchant a write names is the team's.
    let e = PgOrders::on(&owner, MER)
        .upsert_items(1, &[item(1, 5, "USD", "1.00")], 0, true)
        .unwrap_err();
    assert!(
        matches!(e, CoreError::Validation { ref field, .. } if field == "merNo"),
        "{e}"
    );
}

#[test]
fn the_other_cache_tables_answer_alike_on_sqlite_and_on_postgres() {
    let (_pg, owner) = team_db();
    let (_d, conn) = sqlite();
    sync_windows(&SyncState::on(&conn));
    sync_windows(&PgSyncState::on(&owner, MER));
    balances(&Balances::on(&conn));
    balances(&PgBalances::on(&owner, MER));
    what_the_desk_did(
        &CardOperations::on(&conn),
        &Reviews::on(&conn),
        &Reversals::on(&conn),
        &Notifications::on(&conn),
    );
    what_the_desk_did(
        &PgCards::on(&owner, MER),
        &PgReviews::on(&owner, MER),
        &PgReversals::on(&owner, MER),
        &PgNotifications::on(&owner, MER),
    );
    for views in [
        &SavedViews::on(&conn) as &dyn ViewStore,
        &PgViews::on(&owner, MER),
    ] {
        let usd = r#"{"orderFilter":{"currencies":["USD"]}}"#;
        let b = views.save(Screen::Orders, "b-usd", usd, false).unwrap();
        let a = views.save(Screen::Orders, "a-all", "{}", false).unwrap();
        assert_eq!(views.save(Screen::Orders, "b-usd", "{}", false).unwrap(), b);
        views
            .save(Screen::Events, "other screen", "{}", false)
            .unwrap();
        let all = views.list(Screen::Orders).unwrap();
        let names: Vec<&str> = all.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["a-all", "b-usd"]);
        assert_eq!(all[1].spec, Default::default(), "replaced");
        assert!(views.delete(a).unwrap());
        assert!(!views.delete(a).unwrap(), "gone already");
        assert_eq!(views.list(Screen::Orders).unwrap().len(), 1);
        views.set_last(Screen::Orders, Some(b)).unwrap();
        assert_eq!(views.last(Screen::Orders).unwrap(), Some(b));
        assert_eq!(views.last(Screen::Events).unwrap(), None);
    }
}

fn refused_by_the_team(r: paydesk_core::CoreResult<impl std::fmt::Debug>, what: &str) {
    match r {
        Err(CoreError::Validation { field, rule }) => {
            assert_eq!(field, "team", "{what}: {rule}");
            assert!(rule.contains("permission denied"), "{what}: {rule}");
        }
        other => panic!("{what}: not refused by the database: {other:?}"),
    }
}

#[test]
fn every_role_reads_the_orders_only_a_signer_writes_them_and_filters_are_ones_own() {
    let (pg, _owner) = team_db();
    let signer = member(&pg, "sam", "signer");
    let viewer = member(&pg, "vic", "viewer");
    let support = member(&pg, "sue", "support");
    let maker = member(&pg, "mark", "maker");
    let items: Vec<OrderListItem> = (0..50).map(|n| item(n, 5, "USD", "3.00")).collect();
    assert_eq!(
        PgOrders::on(&signer, MER)
            .upsert_items(MER as u64, &items, 0, true)
            .unwrap(),
        50
    );
    PgSyncState::on(&signer, MER)
        .page_done(
            "signer-desk",
            PageDone {
                window_start: 0,
                window_end: 10,
                page_num: 1,
                total_pages: 1,
                clean: true,
            },
        )
        .unwrap();
    let page = OrderFilter::default();
    let want = PgOrders::on(&signer, MER).query(&page, 0, 20).unwrap();
    for (who, link) in [
        ("viewer", &viewer),
        ("support", &support),
        ("maker", &maker),
    ] {
        let orders = PgOrders::on(link, MER);
        assert_eq!(orders.query(&page, 0, 20).unwrap(), want, "{who} reads");
        assert_eq!(search(&orders, "000042"), 1);
        // The team's sync progress, whatever the reader's profile is called.
        assert!(
            PgSyncState::on(link, MER)
                .window_complete("their-own-profile", 0, 10)
                .unwrap()
        );
        assert!(
            PgSyncState::on(link, MER)
                .last_synced("x")
                .unwrap()
                .is_some()
        );
        PgBalances::on(link, MER).latest().unwrap();
        PgReviews::on(link, MER).latest(None).unwrap();
        PgNotifications::on(link, MER).latest(10).unwrap();
    }
    for (who, link) in [
        ("viewer", &viewer),
        ("support", &support),
        ("maker", &maker),
    ] {
        let orders = PgOrders::on(link, MER);
        refused_by_the_team(
            orders.upsert_items(MER as u64, &[item(99, 5, "USD", "1.00")], 0, true),
            &format!("{who} upserting"),
        );
        refused_by_the_team(
            orders.record_made(
                MER as u64,
                &MadeOrder {
                    trade_no: "T-X".into(),
                    mer_order_no: "M-X".into(),
                    kind: OrderKind::Payin,
                    method: String::new(),
                    currency: "USD".into(),
                    amount: "1".parse().unwrap(),
                    state: Some(2),
                    made_at: 1,
                },
            ),
            &format!("{who} recording a made order"),
        );
        refused_by_the_team(
            PgSyncState::on(link, MER).record_error("p", "x"),
            &format!("{who} writing the sync's progress"),
        );
        refused_by_the_team(
            PgNotifications::on(link, MER).add("payout", "T", "{}", true),
            &format!("{who} writing a notification"),
        );
    }
    // Plain SQL is held the same way.
    let sql = |user: &str, q: &str| pg.psql_as(user, PASSWORD, DB, q);
    let e = sql("vic", "UPDATE paydesk.orders SET state = 1").unwrap_err();
    assert!(e.contains("permission denied"), "{e}");
    assert_eq!(PgOrders::on(&viewer, MER).count_all().unwrap(), 50);

    // Personal saved views: each member's own, by name (shared ones: team_views.rs).
    let usd = r#"{"orderFilter":{"currencies":["USD"]}}"#;
    PgViews::on(&viewer, MER)
        .save(Screen::Orders, "mine", usd, false)
        .unwrap();
    let theirs = PgViews::on(&support, MER)
        .save(Screen::Orders, "mine", "{}", false)
        .unwrap();
    let seen = PgViews::on(&viewer, MER).list(Screen::Orders).unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        seen[0].spec.order_filter.as_ref().unwrap().currencies,
        ["USD"]
    );
    assert!(
        PgViews::on(&maker, MER)
            .list(Screen::Orders)
            .unwrap()
            .is_empty()
    );
    assert!(
        !PgViews::on(&viewer, MER).delete(theirs).unwrap(),
        "not vic's"
    );
    assert!(PgViews::on(&support, MER).delete(theirs).unwrap());
    assert_eq!(
        PgViews::on(&viewer, MER)
            .list(Screen::Orders)
            .unwrap()
            .len(),
        1
    );
    // Through plain SQL too: another's rows are not there, and cannot be written as theirs.
    assert_eq!(
        sql("sue", "SELECT count(*) FROM paydesk.saved_views")
            .unwrap()
            .trim(),
        "0"
    );
    let e = sql(
        "sue",
        "INSERT INTO paydesk.saved_views (mer_no, owner, screen, name, spec, created_at, updated_at) VALUES (10001, 'vic', 'orders', 'x', '{}', 0, 0)",
    )
    .unwrap_err();
    assert!(e.contains("row-level security"), "{e}");
    let e = sql("sue", "DELETE FROM paydesk.saved_views").unwrap_err();
    assert!(e.contains("permission denied"), "{e}");
    assert_eq!(
        PgViews::on(&viewer, MER)
            .list(Screen::Orders)
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn cache_read_is_one_snapshot_and_cache_atomic_all_or_nothing() {
    let (pg, owner) = team_db();
    let signer = || Arc::new(member_or_connect(&pg, "sam", "signer"));
    let store = Store::open_team(signer(), signer(), MER).unwrap();
    assert!(Arc::ptr_eq(
        store.team_link().unwrap(),
        store.team_link().unwrap()
    ));
    let items: Vec<OrderListItem> = (0..10).map(|n| item(n, 2, "USD", "1.00")).collect();
    let done = PageDone {
        window_start: 0,
        window_end: 10,
        page_num: 1,
        total_pages: 1,
        clean: true,
    };
    // A batch and its progress fail together.
    let r: paydesk_core::CoreResult<()> = store.cache_atomic(|tx| {
        let rows: Vec<Upsert<'_>> = items
            .iter()
            .map(|item| Upsert {
                item,
                created_at: 0,
                verified: true,
                window_end: None,
            })
            .collect();
        tx.orders.upsert(MER as u64, &rows)?;
        tx.sync_state.page_done("p", done)?;
        Err(CoreError::internal("stop"))
    });
    assert!(r.is_err());
    assert_eq!(store.orders().count_all().unwrap(), 0, "rolled back");
    assert!(!store.sync_state().window_complete("p", 0, 10).unwrap());
    let changed = store
        .cache_atomic(|tx| {
            let n = tx.orders.upsert_items(MER as u64, &items, 0, true)?;
            tx.sync_state.page_done("p", done)?;
            Ok(n)
        })
        .unwrap();
    assert_eq!(changed, 10);
    assert!(store.sync_state().window_complete("p", 0, 10).unwrap());

    // What another desk writes meanwhile is not in the screen's one moment.
    let (before, after) = store
        .cache_read(|c| {
            let before = c.orders.count_all()?;
            PgOrders::on(&owner, MER).upsert_items(
                MER as u64,
                &[item(77, 5, "USD", "1.00")],
                0,
                true,
            )?;
            Ok((before, c.orders.count_all()?))
        })
        .unwrap();
    assert_eq!((before, after), (10, 10));
    assert_eq!(store.orders().count_all().unwrap(), 11);
    // A read transaction refuses writes.
    assert!(
        store
            .cache_read(|c| c.orders.upsert_items(MER as u64, &items, 0, true))
            .is_err()
    );
    // The dashboard's figures come from it.
    let figures = store
        .cache_read(|c| Ok((c.balances.latest()?, c.reviews.pending_count()?)))
        .unwrap();
    assert_eq!(figures.1, 0);
}

/// The member `name` (created with `role` the first time), connected.
fn member_or_connect(pg: &TestPg, name: &str, role: &str) -> PgLink {
    let exists = pg
        .psql_super(
            DB,
            &format!("SELECT count(*) FROM pg_roles WHERE rolname = '{name}'"),
        )
        .unwrap();
    if exists.trim() == "1" {
        connect(pg, name, PASSWORD)
    } else {
        member(pg, name, role)
    }
}

/// A signer's desk on a team profile syncs the sandbox's orders into the team's
/// database; a viewer's link then reads the very page the signer's desk shows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signer_desk_syncs_the_sandbox_and_a_viewer_reads_the_same_page() {
    let (pg, _owner) = team_db();
    drop(member(&pg, "sam", "signer"));
    let viewer = member(&pg, "vic", "viewer");
    let f = common::Fixture::new("signer").await;
    let seeded = f.running.sandbox.seed(&paydesk_sandbox::SeedSpec {
        mer_no: Some(common::MER),
        seed: 5,
        ..paydesk_sandbox::SeedSpec::new(1_200)
    });
    let p = f.home.get(&f.name).unwrap();
    f.home
        .put(Profile {
            team: Some(cfg(&pg, "sam")),
            ..p
        })
        .unwrap();
    f.secrets.set_team_password(&f.name, PASSWORD).unwrap();
    let desk = Desk::open(&f.home, f.secrets.clone(), &f.name, Endpoint::Profile).unwrap();
    assert!(
        !f.home.database(&f.name).exists(),
        "a team desk keeps no SQLite file"
    );
    let report = desk
        .orders()
        .sync(
            &desk.orders().sync_options(120),
            Arc::new(AtomicBool::new(false)),
            |_| {},
        )
        .await
        .unwrap();
    assert_eq!(report.refused_count, 0, "{report:?}");
    let filter = OrderFilter {
        sort: SortKey::TradeNo,
        ..OrderFilter::default()
    };
    let theirs = desk.orders().page(&filter, 0, 100).unwrap();
    assert_eq!(theirs.total, seeded as i64);
    let team = Store::open_team(
        Arc::new(viewer),
        Arc::new(connect(&pg, "vic", PASSWORD)),
        MER,
    )
    .unwrap();
    let mine = team.orders().query(&filter, 0, 100).unwrap();
    assert_eq!(mine, theirs);
    // Deep pages, anchored, as the screen reads them.
    let anchors = team.orders().anchors(&filter).unwrap();
    assert_eq!(anchors.total, seeded as i64);
    let deep = team
        .orders()
        .query_anchored(&filter, &anchors, 1_100, 100)
        .unwrap();
    assert_eq!(deep, desk.orders().page(&filter, 1_100, 100).unwrap());
    // The viewer's dashboard sees the team's sync.
    assert!(
        team.sync_state()
            .last_synced("viewer-profile")
            .unwrap()
            .is_some()
    );
}

/// Issue 30: an order the team's read model holds that no journal of the team made (a
/// desk with the merchant key on a plain profile, another tool) is flagged as made
/// outside this team, in a page and alone; one a signer's journal made is not. A
/// single desk's own cache flags nothing.
#[test]
fn orders_no_team_journal_made_are_flagged_outside_the_team() {
    let (_pg, owner) = team_db();
    let (_d, conn) = sqlite();
    for (o, team) in [
        (&PgOrders::on(&owner, MER) as &dyn OrderStore, true),
        (&Orders::on(&conn), false),
    ] {
        let listed = [item(1, 2, "MXN", "900000.00"), item(2, 2, "MXN", "100.00")];
        o.upsert_items(MER as u64, &listed, 1_795_000_000_000, true)
            .unwrap();
        // The team's journal made the second (a signer recorded it when it was accepted).
        assert!(
            o.record_made(
                MER as u64,
                &MadeOrder {
                    trade_no: listed[1].trade_no.clone(),
                    mer_order_no: listed[1].mer_order_no.clone(),
                    kind: OrderKind::Payin,
                    method: "SPEI".into(),
                    currency: "MXN".into(),
                    amount: "100.00".parse().unwrap(),
                    state: Some(2),
                    made_at: 1_795_000_123_456,
                },
            )
            .unwrap()
        );
        let page = o.query(&OrderFilter::default(), 0, 10).unwrap();
        let flags: Vec<(String, bool)> = page
            .rows
            .iter()
            .map(|r| (r.trade_no.clone(), r.outside_team))
            .collect();
        let mut flags = flags;
        flags.sort();
        assert_eq!(
            flags,
            [
                (listed[0].trade_no.clone(), team),
                (listed[1].trade_no.clone(), false)
            ],
            "team: {team}"
        );
        assert_eq!(
            o.get(&listed[0].trade_no).unwrap().unwrap().outside_team,
            team
        );
        // The conventions' kind rules label a single desk's orders by their number; on a
        // team an order made outside it keeps no kind, so a statement never counts it as
        // a payin (it goes on the line of orders of unknown kind).
        o.label_kind("M-", OrderKind::Payin).unwrap();
        let groups = o.statement_groups(&OrderFilter::default()).unwrap();
        let payins: i64 = groups
            .iter()
            .filter(|g| g.kind == Some(OrderKind::Payin))
            .map(|g| g.count)
            .sum();
        let unknown: i64 = groups
            .iter()
            .filter(|g| g.kind.is_none())
            .map(|g| g.count)
            .sum();
        assert_eq!((payins, unknown), if team { (1, 1) } else { (2, 0) });
        // The plain orders export says it too, in its last column.
        let dir = tempfile::tempdir().unwrap();
        let csv_path = dir.path().join("orders.csv");
        paydesk_reports::export::export(
            o,
            &OrderFilter::default(),
            &csv_path,
            paydesk_core::output::Existing::Replace,
            chrono::FixedOffset::east_opt(0).unwrap(),
            &paydesk_gateway::StateDictionary::default(),
            |_, _| {},
        )
        .unwrap();
        let mut rd = csv::Reader::from_path(&csv_path).unwrap();
        let last = rd.headers().unwrap().len() - 1;
        assert_eq!(&rd.headers().unwrap()[last], "outsideTeam");
        let mut marked: Vec<(String, String)> = rd
            .records()
            .map(|r| {
                let r = r.unwrap();
                (r[0].to_string(), r[last].to_string())
            })
            .collect();
        marked.sort();
        let yes = |b: bool| if b { "yes" } else { "" }.to_string();
        assert_eq!(
            marked,
            [
                (listed[0].trade_no.clone(), yes(team)),
                (listed[1].trade_no.clone(), yes(false))
            ]
        );
    }
}

/// Issue 30: a team's statement says which of its orders were made outside the team: a
/// count line in its header (also the PDF's), and a column of its orders sheet marking
/// each such order, in the CSV and the XLSX. A single desk's statement counts none.
#[test]
fn a_team_statement_marks_the_orders_made_outside_the_team() {
    use paydesk_reports::statement::{Period, Statement, export};
    let (_pg, owner) = team_db();
    let (_d, conn) = sqlite();
    let dict = paydesk_gateway::StateDictionary::default();
    let dir = tempfile::tempdir().unwrap();
    for (o, team) in [
        (&PgOrders::on(&owner, MER) as &dyn OrderStore, true),
        (&Orders::on(&conn), false),
    ] {
        // Three listed orders; a signer's journal made the second only.
        let listed: Vec<_> = (1..=3).map(|n| item(n, 2, "MXN", "100.00")).collect();
        o.upsert_items(MER as u64, &listed, 1_795_000_000_000, true)
            .unwrap();
        o.record_made(
            MER as u64,
            &MadeOrder {
                trade_no: listed[1].trade_no.clone(),
                mer_order_no: listed[1].mer_order_no.clone(),
                kind: OrderKind::Payin,
                method: "SPEI".into(),
                currency: "MXN".into(),
                amount: "100.00".parse().unwrap(),
                state: Some(2),
                made_at: 1_795_000_123_456,
            },
        )
        .unwrap();
        let period = Period::new(1_794_900_000_000, 1_795_100_000_000).unwrap();
        let s = Statement::build(o, &dict, period, None).unwrap();
        // What the Reports screen shows: the count, and none of them among the payins.
        assert_eq!(s.outside_team, if team { 2 } else { 0 });
        let write = |name: &str| {
            let path = dir.path().join(format!("{team}-{name}"));
            let out = paydesk_core::output::create(&path, paydesk_core::output::Existing::Replace)
                .unwrap();
            let e = export::export(
                o,
                &s,
                &dict,
                out,
                chrono::FixedOffset::east_opt(0).unwrap(),
                1_795_200_000_000,
                "Demo",
            )
            .unwrap();
            (path, e)
        };
        let (csv_path, csv) = write("s.csv");
        let (xlsx_path, xlsx) = write("s.xlsx");
        let (pdf_path, _) = write("s.pdf");
        assert_eq!(csv.rows, 3);
        assert_eq!(csv.sha256, xlsx.sha256);
        let outside = if team { 2 } else { 0 };
        let line = format!(
            "Orders made outside this team (no request of the team made them; never counted as payins),{outside}"
        );
        let text = std::fs::read_to_string(&csv_path).unwrap();
        assert!(text.lines().any(|l| l == line), "team {team}: {text}");
        // The orders section: a header naming the column, and the mark on each order
        // no journal of the team made (by trade number, computed here).
        let mut rows = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(text.as_bytes())
            .into_records()
            .map(Result::unwrap)
            .skip_while(|r| r.get(0) != Some("Trade number"));
        let head = rows.next().expect("the orders section");
        let col = head
            .iter()
            .position(|h| h == "Made outside this team")
            .expect("the column");
        let mut marks: Vec<(String, String)> = rows
            .map(|r| (r[0].to_string(), r[col].to_string()))
            .collect();
        marks.sort();
        let yes = |b: bool| if b { "yes" } else { "" }.to_string();
        assert_eq!(
            marks,
            [
                (listed[0].trade_no.clone(), yes(team)),
                (listed[1].trade_no.clone(), yes(false)),
                (listed[2].trade_no.clone(), yes(team)),
            ]
        );
        // The workbook's orders sheet has the column, the PDF the count line.
        let book = std::fs::read(&xlsx_path).unwrap();
        assert!(zip_text(&book).contains(">Made outside this team<"));
        let pdf = String::from_utf8_lossy(&std::fs::read(&pdf_path).unwrap()).into_owned();
        assert!(pdf.contains("(Orders made outside this team"), "PDF line");
    }
}

/// Every file of a zip (an XLSX), as text.
fn zip_text(bytes: &[u8]) -> String {
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut s = String::new();
    for i in 0..z.len() {
        let mut f = z.by_index(i).unwrap();
        std::io::Read::read_to_string(&mut f, &mut s).unwrap();
    }
    s
}

/// Issue 33: support finds an order the journal made by its customer (the payer's
/// e-mail, name, user id, as the request it sent named them) on the team's read model as
/// on a single desk, a viewer too; an order only listed by the gateway is not found by a
/// customer it never named, and a number fragment still finds its order.
#[test]
fn orders_made_here_are_found_by_their_customer_on_postgres_as_on_sqlite() {
    use paydesk_core::journal::Status;
    use paydesk_store_pg::journal::PgJournal;
    use paydesk_store_sqlite::journal::{Begin, Guard, Intent, Journal, Outcome as Finished};

    let (pg, owner) = team_db();
    let (_d, conn) = sqlite();
    let viewer = member(&pg, "vera", "viewer");
    let made = |j: &dyn JournalStore, no: &str, trade_no: &str, request: serde_json::Value| {
        let Begin::Send(e, claim) = j
            .begin(
                "p",
                Intent {
                    operation: "v1.payment",
                    mer_order_no: no,
                    request: &request,
                    summary: "payin",
                    fingerprint: &format!("fp-{no}"),
                    purpose: None,
                },
                Guard {
                    window_ms: 0,
                    allow_duplicate: true,
                },
            )
            .unwrap()
        else {
            panic!("{no} was not begun");
        };
        j.finish(
            e.id,
            &claim,
            Finished {
                status: Status::Accepted,
                trade_no: Some(trade_no),
                code: None,
                message: None,
            },
        )
        .unwrap();
    };
    let pg_orders = PgOrders::on(&owner, MER);
    let viewer_orders = PgOrders::on(&viewer, MER);
    let sqlite_orders = Orders::on(&conn);
    for (o, j, readers, what) in [
        (
            &pg_orders as &dyn OrderStore,
            &PgJournal::on(&owner, MER) as &dyn JournalStore,
            vec![&pg_orders as &dyn OrderStore, &viewer_orders],
            "postgres",
        ),
        (
            &sqlite_orders,
            &Journal::on(&conn),
            vec![&sqlite_orders as &dyn OrderStore],
            "sqlite",
        ),
    ] {
        let listed = [
            item(1, 2, "BRL", "25.00"),
            item(2, 2, "EUR", "30.00"),
            item(3, 2, "BRL", "40.00"),
        ];
        o.upsert_items(MER as u64, &listed, 1_795_000_000_000, true)
            .unwrap();
        made(
            j,
            &listed[0].mer_order_no,
            &listed[0].trade_no,
            serde_json::json!({"email": "ana.lima@example.com", "userId": "cust-0042",
                "name": "Ana Lima", "sourceAmount": "25.00"}),
        );
        made(
            j,
            &listed[1].mer_order_no,
            &listed[1].trade_no,
            serde_json::json!({"email": "bruno@example.org", "billingFirstName": "Bruno",
                "billingLastName": "Souza", "sourceAmount": "30.00"}),
        );
        for r in &readers {
            assert_eq!(search(*r, "ana.lima@"), 1, "{what}: by e-mail");
            assert_eq!(search(*r, "Ana Lima"), 1, "{what}: by name");
            assert_eq!(search(*r, "souza"), 1, "{what}: by billing name, any case");
            assert_eq!(search(*r, "cust-0042"), 1, "{what}: by user id");
            assert_eq!(search(*r, "@example."), 2, "{what}: both customers");
            assert_eq!(search(*r, "nobody@example"), 0, "{what}");
            assert_eq!(
                search(*r, "25.00"),
                0,
                "{what}: not by the request's amount"
            );
            assert_eq!(search(*r, "M-000003"), 1, "{what}: a number still");
            let found = r
                .query(
                    &OrderFilter {
                        search: Some("ana.lima".into()),
                        ..OrderFilter::default()
                    },
                    0,
                    10,
                )
                .unwrap();
            let numbers: Vec<&str> = found.rows.iter().map(|o| o.trade_no.as_str()).collect();
            assert_eq!(numbers, [listed[0].trade_no.as_str()], "{what}");
        }
    }
}

/// The sync's re-listing on PostgreSQL: an order the list shows as cached is not written
/// again (the same row version, its `synced_at`, `moved_at` and history as they were),
/// one the list shows otherwise is (its state's change in the history, a fee's change
/// moving it, a change of an amount's scale kept, an order made here stamped as listed
/// with its label kept), and an order read by its number (a look-up) is stamped anew.
#[test]
fn a_resync_writes_only_the_orders_the_list_shows_otherwise() {
    let (pg, owner) = team_db();
    let o = PgOrders::on(&owner, MER);
    let mer = MER as u64;
    let fee = |item: OrderListItem, f: i64| OrderListItem {
        handling_fee: Some(rust_decimal::Decimal::new(f, 1)),
        ..item
    };
    let (a, b, c) = (
        fee(item(1, 5, "USD", "12.3"), 5),
        item(2, 2, "USD", "20.00"),
        fee(item(3, 5, "MXN", "30.00"), 5),
    );
    let sync = |items: &[OrderListItem]| {
        let rows: Vec<Upsert<'_>> = items
            .iter()
            .map(|item| Upsert {
                item,
                created_at: 1_000,
                verified: true,
                window_end: None,
            })
            .collect();
        o.upsert(mer, &rows).unwrap()
    };
    assert_eq!(sync(&[a.clone(), b.clone(), c.clone()]), 3);
    let made = MadeOrder {
        trade_no: "T202600000004".into(),
        mer_order_no: "M-000004".into(),
        kind: OrderKind::Payout,
        method: "CLABE".into(),
        currency: "USD".into(),
        amount: "40.00".parse().unwrap(),
        state: Some(2),
        made_at: 500,
    };
    assert!(o.record_made(mer, &made).unwrap());
    // trade number -> (row version, synced_at, moved_at, history rows), as the server holds them.
    let rows = || -> std::collections::HashMap<String, (String, i64, i64, i64)> {
        pg.psql_owner(
            DB,
            &format!(
                "SELECT o.trade_no, o.xmin, o.synced_at, o.moved_at,
                        (SELECT count(*) FROM paydesk.order_history h
                          WHERE h.mer_no = o.mer_no AND h.trade_no = o.trade_no)
                   FROM paydesk.orders o WHERE o.mer_no = {MER}"
            ),
        )
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('|').collect();
            let n = |i: usize| f[i].parse::<i64>().unwrap();
            (f[0].to_string(), (f[1].to_string(), n(2), n(3), n(4)))
        })
        .collect()
    };
    let before = rows();
    assert_eq!(before["T202600000004"].1, 0, "made here, not listed yet");
    std::thread::sleep(std::time::Duration::from_millis(5));

    // Re-listed: a as cached; b moved on; c's fee changed; the made order as made; a new one.
    let listed_made = OrderListItem {
        state: 2,
        mer_order_no: made.mer_order_no.clone(),
        trade_no: made.trade_no.clone(),
        source_amount: made.amount,
        source_currency: "USD".into(),
        settlement_currency: "USD".into(),
        ..OrderListItem::default()
    };
    let b2 = OrderListItem {
        state: 5,
        ..b.clone()
    };
    let c2 = fee(c.clone(), 7);
    let e = item(5, 5, "USD", "50.00");
    assert_eq!(
        sync(&[
            a.clone(),
            b2.clone(),
            c2.clone(),
            listed_made.clone(),
            e.clone()
        ]),
        2,
        "one new, one changed state"
    );
    let after = rows();
    let (was, now) = (&before["T202600000001"], &after["T202600000001"]);
    assert_eq!(
        was, now,
        "listed as cached: the same row version, untouched"
    );
    let (was, now) = (&before["T202600000002"], &after["T202600000002"]);
    assert_ne!(was.0, now.0, "changed state: written");
    assert!(now.1 > was.1 && now.2 > was.2, "{was:?} -> {now:?}");
    assert_eq!(now.3, 2, "first seen, then the change");
    assert_eq!(
        o.history("T202600000002").unwrap(),
        vec![
            (2, 1_000, "first seen".to_string()),
            (5, now.1, "sync".to_string())
        ]
    );
    let (was, now) = (&before["T202600000003"], &after["T202600000003"]);
    assert_ne!(was.0, now.0, "a fee changed: written");
    assert!(
        now.2 > was.2,
        "a changed fee moves the balance: {was:?} -> {now:?}"
    );
    assert_eq!(now.3, 0, "no change of state, no history");
    assert_eq!(
        o.get("T202600000003")
            .unwrap()
            .unwrap()
            .handling_fee
            .as_deref(),
        Some("0.7")
    );
    let (was, now) = (&before["T202600000004"], &after["T202600000004"]);
    assert_ne!(
        was.0, now.0,
        "made here and listed for the first time: written"
    );
    assert!(now.1 > 0);
    let four = o.get("T202600000004").unwrap().unwrap();
    assert_eq!(
        (four.kind, four.made_at, four.synced_at),
        (Some(OrderKind::Payout), Some(500), Some(now.1))
    );
    assert!(after.contains_key("T202600000005"));

    // The same list again: nothing written at all.
    assert_eq!(sync(&[a.clone(), b2, c2, listed_made, e]), 0);
    assert_eq!(rows(), after);

    // A change of an amount's scale only is written, and read back as listed.
    let a2 = OrderListItem {
        source_amount: "12.30".parse().unwrap(),
        ..a.clone()
    };
    assert_eq!(sync(std::slice::from_ref(&a2)), 0);
    let scaled = rows();
    assert_ne!(scaled["T202600000001"].0, after["T202600000001"].0);
    assert_eq!(
        o.get("T202600000001").unwrap().unwrap().source_amount,
        "12.30"
    );

    // Read by its number (a look-up, the order page's re-read): stamped as listed now.
    std::thread::sleep(std::time::Duration::from_millis(5));
    assert_eq!(o.upsert_items(mer, &[a2], 9_000, true).unwrap(), 0);
    let looked = rows();
    let (was, now) = (&scaled["T202600000001"], &looked["T202600000001"]);
    assert_ne!(was.0, now.0);
    assert!(now.1 > was.1, "synced_at: {was:?} -> {now:?}");
    assert_eq!((now.2, now.3), (was.2, 0), "nothing moved, no history");
}
