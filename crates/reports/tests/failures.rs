//! Why money did not come in (issue 36): orders with known states, reasons, messages,
//! methods and amounts are cached on a desk's SQLite file and on the team's PostgreSQL
//! read model; the failure breakdown's every figure is checked against counts and sums
//! this test makes itself from the orders it cached, and every figure's filter lists
//! exactly its orders on both backends (what the Orders screen opens).

#![allow(clippy::unwrap_used)]

#[path = "../../core/tests/common/mod.rs"]
mod common;

use std::collections::BTreeMap;

use paydesk_core::store::prelude::*;
use paydesk_gateway::StateDictionary;
use paydesk_gateway::wire::OrderListItem;
use paydesk_reports::failures::{Breakdown, FailureReport, RateLine, Tally};
use paydesk_reports::statement::{Period, Zone};
use paydesk_store_pg::orders::PgOrders;
use paydesk_store_pg::{PgConfig, PgLink, init_team};
use paydesk_store_sqlite::orders::{MadeOrder, OrderKind, Orders};
use paydesk_store_sqlite::{self as db, Durability};
use paydesk_testpg::TestPg;
use rust_decimal::Decimal;

const DAY: i64 = 86_400_000;
const STATES: [i64; 10] = [5, 6, 7, 8, 3, 3, 4, 2, 1, 9];
const REASONS: [&str; 3] = ["insufficient funds", "do not honor", ""];
const MESSAGES: [&str; 3] = ["", "E2031", "closed: not paid in time"];
const METHODS: [&str; 3] = ["CARD", "SPEI", "PIX"];

/// One cached order as this test knows it.
struct Known {
    state: i64,
    /// `payin` when made here, else not known.
    kind: Option<&'static str>,
    currency: String,
    method: String,
    reason: String,
    message: String,
    day: i64,
    amount: Decimal,
}

/// The test's own classes (the sandbox dictionary's states: 5 success, 6 refunded, 7
/// partly refunded, 8 charged back; 3 failed; 4 closed; 1 created and 2 pending; 9 is
/// a state it does not know).
fn class(state: i64) -> &'static str {
    match state {
        5..=8 => "succeeded",
        3 => "failed",
        4 => "closed",
        1 | 2 => "pending",
        _ => "unknown",
    }
}

/// A count, and per currency (count, sum).
type Class = (i64, BTreeMap<String, (i64, Decimal)>);
/// Per class.
type Sums = BTreeMap<&'static str, Class>;

fn sums<'a>(orders: impl Iterator<Item = &'a Known>) -> Sums {
    let mut s: Sums = BTreeMap::new();
    for o in orders {
        let e = s.entry(class(o.state)).or_default();
        e.0 += 1;
        let c = e.1.entry(o.currency.clone()).or_default();
        c.0 += 1;
        c.1 += o.amount;
    }
    s
}

fn tally_is(t: &Tally, expected: Option<&Class>, what: &str) {
    let empty = (0, BTreeMap::new());
    let (n, by) = expected.unwrap_or(&empty);
    assert_eq!(t.count, *n, "{what}: count");
    let got: BTreeMap<String, (i64, Decimal)> = t
        .amounts
        .iter()
        .map(|a| (a.currency.clone(), (a.count, a.amount.parse().unwrap())))
        .collect();
    assert_eq!(&got, by, "{what}: amounts per currency");
    assert_eq!(
        t.filter.is_some(),
        *n > 0,
        "{what}: a filter only for orders"
    );
}

/// The test's own rate: succeeded * 100 / (succeeded + failed + closed), one decimal.
fn rate(s: &Sums) -> Option<String> {
    let n = |c: &str| s.get(c).map_or(0, |e| e.0);
    let ended = n("succeeded") + n("failed") + n("closed");
    (ended > 0).then(|| {
        let r = Decimal::from(n("succeeded") * 100) / Decimal::from(ended);
        format!(
            "{:.1}",
            r.round_dp_with_strategy(1, rust_decimal::RoundingStrategy::MidpointAwayFromZero)
        )
    })
}

fn line_is(l: &RateLine, s: &Sums, what: &str) {
    tally_is(
        &l.succeeded,
        s.get("succeeded"),
        &format!("{what} succeeded"),
    );
    tally_is(&l.failed, s.get("failed"), &format!("{what} failed"));
    tally_is(&l.closed, s.get("closed"), &format!("{what} closed"));
    tally_is(&l.pending, s.get("pending"), &format!("{what} pending"));
    tally_is(&l.unknown, s.get("unknown"), &format!("{what} unknown"));
    let n = |c: &str| s.get(c).map_or(0, |e| e.0);
    assert_eq!(
        l.not_paid.count,
        n("failed") + n("closed"),
        "{what} not paid"
    );
    assert_eq!(l.rate, rate(s), "{what} rate");
}

/// Every figure's filter lists exactly the figure's orders, with its amounts.
fn opens_its_orders(store: &dyn OrderStore, t: &Tally, what: &str) {
    let Some(f) = &t.filter else { return };
    assert_eq!(
        store.count(f).unwrap(),
        t.count,
        "{what}: orders of the filter"
    );
    let mut by: BTreeMap<String, (i64, Decimal)> = BTreeMap::new();
    store
        .for_each(f, &mut |o| {
            let e = by.entry(o.currency.clone()).or_default();
            e.0 += 1;
            e.1 += o.source_amount.parse::<Decimal>().unwrap();
            Ok(())
        })
        .unwrap();
    let got: BTreeMap<String, (i64, Decimal)> = t
        .amounts
        .iter()
        .map(|a| (a.currency.clone(), (a.count, a.amount.parse().unwrap())))
        .collect();
    assert_eq!(got, by, "{what}: the filter's orders add up to the figure");
}

fn check(b: &Breakdown, known: &[Known], period: Period, store: &dyn OrderStore) {
    let first = period.from / DAY;
    let last = period.to / DAY;
    let inside: Vec<&Known> = known
        .iter()
        .filter(|o| (first..last).contains(&o.day))
        .collect();
    line_is(&b.all, &sums(inside.iter().copied()), "all");
    // By currency.
    let currencies: std::collections::BTreeSet<&str> =
        inside.iter().map(|o| o.currency.as_str()).collect();
    assert_eq!(b.by_currency.len(), currencies.len());
    for l in &b.by_currency {
        let c = l.key.clone().unwrap();
        line_is(
            l,
            &sums(inside.iter().copied().filter(|o| o.currency == c)),
            &c,
        );
    }
    // By kind: the payins made here, and the orders whose kind is not known.
    assert_eq!(b.by_kind.len(), 2);
    for l in &b.by_kind {
        line_is(
            l,
            &sums(
                inside
                    .iter()
                    .copied()
                    .filter(|o| o.kind == l.key.as_deref()),
            ),
            &format!("kind {:?}", l.key),
        );
    }
    // By method; "not given" (None) for the orders no method was given for.
    let methods: std::collections::BTreeSet<&str> =
        inside.iter().map(|o| o.method.as_str()).collect();
    assert_eq!(b.by_method.len(), methods.len());
    assert!(b.by_method.iter().any(|l| l.key.is_none()));
    for l in &b.by_method {
        let m = l.key.clone().unwrap_or_default();
        line_is(
            l,
            &sums(inside.iter().copied().filter(|o| o.method == m)),
            &format!("method {m:?}"),
        );
    }
    // Every day of the period, in order.
    assert_eq!(b.by_day.len() as i64, last - first);
    for (i, l) in b.by_day.iter().enumerate() {
        let day = first + i as i64;
        let name = chrono::DateTime::from_timestamp_millis(day * DAY)
            .unwrap()
            .format("%Y-%m-%d")
            .to_string();
        assert_eq!(l.key.as_deref(), Some(name.as_str()));
        line_is(
            l,
            &sums(inside.iter().copied().filter(|o| o.day == day)),
            &name,
        );
    }
    // Reasons: the failed and closed orders by reason and message.
    let mut reasons: BTreeMap<(String, String), Vec<&Known>> = BTreeMap::new();
    for o in inside.iter().filter(|o| matches!(o.state, 3 | 4)) {
        reasons
            .entry((o.reason.clone(), o.message.clone()))
            .or_default()
            .push(o);
    }
    assert_eq!(b.reasons.len(), reasons.len());
    for w in b.reasons.windows(2) {
        assert!(w[0].orders.count >= w[1].orders.count, "most orders first");
    }
    for l in &b.reasons {
        let key = (
            l.reason.clone().unwrap_or_default(),
            l.message.clone().unwrap_or_default(),
        );
        // "Not given" is never a text the gateway gave.
        assert_ne!(l.reason.as_deref(), Some(""));
        assert_ne!(l.message.as_deref(), Some(""));
        let orders = &reasons[&key];
        let s = sums(orders.iter().copied());
        let mut all: Class = (0, BTreeMap::new());
        for (_, (n, by)) in s {
            all.0 += n;
            for (c, (k, a)) in by {
                let e: &mut (i64, Decimal) = all.1.entry(c).or_default();
                e.0 += k;
                e.1 += a;
            }
        }
        tally_is(&l.orders, Some(&all), &format!("reason {key:?}"));
        assert_eq!(
            l.failed,
            orders.iter().filter(|o| o.state == 3).count() as i64
        );
        assert_eq!(
            l.closed,
            orders.iter().filter(|o| o.state == 4).count() as i64
        );
        opens_its_orders(store, &l.orders, &format!("reason {key:?}"));
    }
    for l in [&b.all]
        .into_iter()
        .chain(&b.by_kind)
        .chain(&b.by_method)
        .chain(&b.by_currency)
        .chain(&b.by_day)
    {
        for (t, what) in [
            (&l.succeeded, "succeeded"),
            (&l.failed, "failed"),
            (&l.closed, "closed"),
            (&l.not_paid, "not paid"),
            (&l.pending, "pending"),
            (&l.unknown, "unknown"),
        ] {
            opens_its_orders(store, t, &format!("{:?} {what}", l.key));
        }
    }
}

#[test]
fn the_failure_breakdown_adds_up_to_the_orders_on_sqlite_and_on_postgres() {
    let pg = TestPg::start().unwrap();
    pg.create_database("team").unwrap();
    let cfg = PgConfig {
        host: pg.host().into(),
        port: pg.port(),
        database: "team".into(),
        user: pg.owner().into(),
        ca_file: String::new(),
        cert_file: String::new(),
        key_file: String::new(),
    };
    let owner = PgLink::connect(&cfg, pg.owner_password()).unwrap();
    let mer = common::MER as i64;
    init_team(&owner, mer).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let conn = db::open(&dir.path().join("cache.sqlite"), Durability::Cache).unwrap();
    let sqlite = Orders::on(&conn);
    let team = PgOrders::on(&owner, mer);
    let mut rng = fastrand::Rng::with_seed(36);
    let mut known = Vec::new();
    // 20 days of 30 orders; every third made here (its method known, made an hour
    // into its day).
    for day in 0..20i64 {
        let mut items = Vec::new();
        for k in 0..30usize {
            let n = day as usize * 30 + k;
            let state = STATES[rng.usize(0..STATES.len())];
            let currency = ["USD", "MXN", "JPY"][rng.usize(0..3)];
            let reason = if state == 3 {
                REASONS[rng.usize(0..3)]
            } else {
                ""
            };
            let message = MESSAGES[rng.usize(0..3)];
            let amount = Decimal::new(rng.i64(1..10_000_000), 2);
            items.push(OrderListItem {
                state,
                mer_order_no: format!("M-{n:06}"),
                trade_no: format!("T2026{n:08}"),
                source_amount: amount,
                source_currency: currency.into(),
                settlement_currency: currency.into(),
                refusal_pay_reason: reason.into(),
                message: message.into(),
                ..OrderListItem::default()
            });
            known.push(Known {
                state,
                kind: None,
                currency: currency.into(),
                method: String::new(),
                reason: reason.into(),
                message: message.into(),
                day,
                amount,
            });
        }
        for o in [&sqlite as &dyn OrderStore, &team] {
            o.upsert_items(common::MER, &items, day * DAY, true)
                .unwrap();
        }
    }
    for (n, k) in known.iter_mut().enumerate().step_by(3) {
        k.method = METHODS[(n / 3) % 3].into();
        k.kind = Some("payin");
        let made = MadeOrder {
            trade_no: format!("T2026{n:08}"),
            mer_order_no: format!("M-{n:06}"),
            kind: OrderKind::Payin,
            method: k.method.clone(),
            currency: k.currency.clone(),
            amount: k.amount,
            state: None,
            made_at: k.day * DAY + 3_600_000,
        };
        for o in [&sqlite as &dyn OrderStore, &team] {
            assert!(o.record_made(common::MER, &made).unwrap());
        }
    }
    let dict = StateDictionary::default();
    let period = Period::new(10 * DAY, 20 * DAY).unwrap();
    let a = FailureReport::build(&sqlite, &dict, period, &Zone::UTC).unwrap();
    let b = FailureReport::build(&team, &dict, period, &Zone::UTC).unwrap();
    assert_eq!(a, b, "the same figures on SQLite and on PostgreSQL");
    assert_eq!(a.previous.period, Period::new(0, 10 * DAY).unwrap());
    for (store, r) in [(&sqlite as &dyn OrderStore, &a), (&team, &b)] {
        check(&r.current, &known, period, store);
        check(&r.previous, &known, r.previous.period, store);
    }
    // The seed did give every class and both reasons and "not given".
    assert!(a.current.all.unknown.count > 0 && a.current.all.pending.count > 0);
    assert!(a.current.reasons.iter().any(|l| l.reason.is_none()));
    assert!(
        a.current
            .reasons
            .iter()
            .any(|l| l.reason.as_deref() == Some("do not honor"))
    );
}
