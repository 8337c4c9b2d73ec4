//! The database on real SQLite files: migrations from fresh and from the previous
//! version, refusal of a newer one, the order cache's filters, sort and fragment search,
//! export of every filtered row, and the audit chain catching an edit and a deletion.

#![allow(clippy::unwrap_used)]

use paydesk_core::store::prelude::*;
use paydesk_gateway::StateDictionary;
use paydesk_gateway::wire::OrderListItem;
use paydesk_store_sqlite::audit::{self, AuditLog, Record};
use paydesk_store_sqlite::orders::{self, OrderFilter, Orders, SortKey};
use paydesk_store_sqlite::views::{SavedViews, Screen};
use paydesk_store_sqlite::{self as db, Durability};
use rusqlite::Connection;

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

/// GitButler's reasoning: a newer desk that only added to the schema must not lock out
/// the older desk on the same file (a team upgrades one desk at a time). A change older
/// code cannot read is refused with a clear message and leaves the file untouched.
#[test]
fn an_older_desk_opens_a_newer_database_only_when_the_change_is_compatible() {
    let dir = tempfile::tempdir().unwrap();
    let current = db::MIGRATIONS.last().unwrap().oldest_reader;
    let mut additive = db::MIGRATIONS.to_vec();
    additive.push(db::Migration {
        sql: "CREATE TABLE statement_lines (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
              ALTER TABLE orders ADD COLUMN note TEXT;",
        oldest_reader: current,
    });
    let path = dir.path().join("additive.sqlite");
    {
        let newer = db::open_with(&path, Durability::Cache, &additive).unwrap();
        Orders::on(&newer)
            .upsert_items(1, &[item(1, 5, "USD", "10.00")], 0, true)
            .unwrap();
    }
    // This binary, one schema version behind, reads and writes it.
    let older = db::open(&path, Durability::Cache).unwrap();
    let first = Orders::on(&older)
        .get(&item(1, 5, "USD", "10.00").trade_no)
        .unwrap();
    assert_eq!(first.unwrap().source_amount, "10.00");
    Orders::on(&older)
        .upsert_items(1, &[item(2, 2, "MXN", "7.5")], 0, true)
        .unwrap();
    assert_eq!(Orders::on(&older).count_all().unwrap(), 2);
    let v: i64 = older
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(
        v as usize,
        additive.len(),
        "the newer version stays recorded"
    );
    drop(older);
    // And the newer binary opens it again as its own.
    db::open_with(&path, Durability::Cache, &additive).unwrap();

    let mut breaking = db::MIGRATIONS.to_vec();
    breaking.push(db::Migration {
        sql: "ALTER TABLE orders RENAME COLUMN state TO state_code;",
        oldest_reader: db::MIGRATIONS.len() + 1,
    });
    let path = dir.path().join("breaking.sqlite");
    drop(db::open_with(&path, Durability::Cache, &breaking).unwrap());
    let err = db::open(&path, Durability::Cache).unwrap_err().to_string();
    assert!(
        err.contains("newer PayDesk") && err.contains("cannot read"),
        "{err}"
    );
    let v: i64 = Connection::open(&path)
        .unwrap()
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(v as usize, breaking.len(), "left untouched");
}

/// Writes made through a store handle inside a caller's transaction commit or roll back
/// with it; on their own they are atomic.
#[test]
fn store_handles_join_the_callers_transaction() {
    let dir = tempfile::tempdir().unwrap();
    let mut conn = db::open(&dir.path().join("tx.sqlite"), Durability::Cache).unwrap();
    {
        let tx = conn.transaction().unwrap();
        Orders::on(&*tx)
            .upsert_items(1, &[item(1, 5, "USD", "1.00")], 0, true)
            .unwrap();
        SavedViews::on(&*tx)
            .save(Screen::Orders, "all", "{}", false)
            .unwrap();
        // Dropped without commit: nothing stays.
    }
    assert_eq!(Orders::on(&conn).count_all().unwrap(), 0);
    assert!(
        SavedViews::on(&conn)
            .list(Screen::Orders)
            .unwrap()
            .is_empty()
    );
    let r: Result<(), paydesk_core::CoreError> = db::atomic(&conn, || {
        Orders::on(&conn).upsert_items(1, &[item(2, 5, "USD", "1.00")], 0, true)?;
        Err(paydesk_core::CoreError::internal("stop"))
    });
    assert!(r.is_err());
    assert_eq!(Orders::on(&conn).count_all().unwrap(), 0, "rolled back");
    let tx = conn.transaction().unwrap();
    Orders::on(&*tx)
        .upsert_items(1, &[item(3, 5, "USD", "1.00")], 0, true)
        .unwrap();
    tx.commit().unwrap();
    assert_eq!(Orders::on(&conn).count_all().unwrap(), 1);
    // The journal's intent must be committed before a request leaves: inside someone
    // else's transaction it is refused, never left for that transaction to commit.
    let tx = conn.transaction().unwrap();
    let body = serde_json::json!({ "n": 1 });
    let begun = paydesk_store_sqlite::journal::Journal::on(&*tx).begin(
        "p",
        paydesk_core::journal::Intent {
            operation: "v2.payout",
            mer_order_no: "PO-TX-1",
            request: &body,
            summary: "s",
            fingerprint: "f",
            purpose: None,
        },
        paydesk_core::journal::Guard {
            window_ms: 1,
            allow_duplicate: false,
        },
    );
    assert!(begun.is_err(), "{begun:?}");
    drop(tx);
}

#[test]
fn migrates_fresh_and_previous_and_refuses_newer() {
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("fresh.sqlite");
    let conn = db::open(&fresh, Durability::Cache).unwrap();
    let v: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(v as usize, db::schema_version());
    drop(conn);

    // A database written by the previous version, with data in it.
    let old = dir.path().join("old.sqlite");
    {
        let conn = Connection::open(&old).unwrap();
        conn.execute_batch(db::MIGRATIONS[0].sql).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        conn.execute(
            "INSERT INTO orders (trade_no, mer_no, mer_order_no, state, currency, source_amount, amount_e4, created_at, synced_at)
             VALUES ('T1', 1, 'M1', 5, 'USD', '10.00', 100000, 0, 0)",
            [],
        )
        .unwrap();
    }
    let conn = db::open(&old, Durability::Cache).unwrap();
    assert_eq!(
        Orders::on(&conn).get("T1").unwrap().unwrap().source_amount,
        "10.00"
    );
    SavedViews::on(&conn)
        .save(
            Screen::Orders,
            "usd",
            r#"{"orderFilter":{"currencies":["USD"]}}"#,
            false,
        )
        .unwrap();
    assert_eq!(
        SavedViews::on(&conn).list(Screen::Orders).unwrap()[0].name,
        "usd"
    );
    drop(conn);

    // Written by a newer PayDesk: refused with a clear message, and left untouched.
    let newer = dir.path().join("newer.sqlite");
    Connection::open(&newer)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    let err = db::open(&newer, Durability::Cache).unwrap_err().to_string();
    assert!(err.contains("newer PayDesk"), "{err}");
    let v: i64 = Connection::open(&newer)
        .unwrap()
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(v, 99);
}

#[test]
fn filters_sort_search_and_export_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let conn = db::open(&dir.path().join("c.sqlite"), Durability::Cache).unwrap();
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
        let changed = Orders::on(&conn)
            .upsert_items(10001, chunk, i as i64 * 86_400_000, true)
            .unwrap();
        assert_eq!(changed, chunk.len());
    }
    // Upserting again changes nothing and keeps the first date.
    assert_eq!(
        Orders::on(&conn)
            .upsert_items(10001, &items[..500], 999, true)
            .unwrap(),
        0
    );
    assert_eq!(
        Orders::on(&conn)
            .get(&items[0].trade_no)
            .unwrap()
            .unwrap()
            .created_at,
        0
    );

    let usd_success = OrderFilter {
        states: vec![5],
        currencies: vec!["USD".into()],
        ..OrderFilter::default()
    };
    let page = Orders::on(&conn).query(&usd_success, 0, 100).unwrap();
    assert_eq!(page.total, 1000);
    assert!(
        page.rows
            .iter()
            .all(|o| o.state == 5 && o.currency == "USD")
    );
    assert!(
        page.rows
            .windows(2)
            .all(|w| w[0].created_at <= w[1].created_at)
    );

    let by_amount = OrderFilter {
        sort: SortKey::Amount,
        descending: true,
        min_amount: Some("400".into()),
        ..OrderFilter::default()
    };
    let page = Orders::on(&conn).query(&by_amount, 0, 50).unwrap();
    assert!(
        page.rows
            .windows(2)
            .all(|w| w[0].source_amount.parse::<f64>().unwrap()
                >= w[1].source_amount.parse::<f64>().unwrap())
    );
    assert!(page.rows.iter().all(
        |o| o.source_amount.parse::<rust_decimal::Decimal>().unwrap() >= "400".parse().unwrap()
    ));
    let bad = OrderFilter {
        min_amount: Some("1e3".into()),
        ..OrderFilter::default()
    };
    assert!(
        Orders::on(&conn)
            .query(&bad, 0, 10)
            .unwrap_err()
            .to_string()
            .contains("minAmount")
    );

    // Fragment search: the middle of a trade number, the end of an order number, two characters.
    let hit = Orders::on(&conn)
        .query(
            &OrderFilter {
                search: Some("00001234".into()),
                ..OrderFilter::default()
            },
            0,
            10,
        )
        .unwrap();
    assert_eq!(hit.total, 1);
    assert_eq!(hit.rows[0].mer_order_no, "M-001234");
    let hit = Orders::on(&conn)
        .query(
            &OrderFilter {
                search: Some("-0029".into()),
                ..OrderFilter::default()
            },
            0,
            100,
        )
        .unwrap();
    assert_eq!(hit.total, 100, "M-002900..M-002999");
    let short = Orders::on(&conn)
        .query(
            &OrderFilter {
                search: Some("M-".into()),
                ..OrderFilter::default()
            },
            0,
            1,
        )
        .unwrap();
    assert_eq!(short.total, 3000);
    let plan: String = conn
        .query_row(
            "EXPLAIN QUERY PLAN SELECT * FROM orders WHERE id IN (SELECT rowid FROM orders_fts WHERE orders_fts MATCH '\"1234\"')",
            [],
            |r| r.get(3),
        )
        .unwrap();
    assert!(
        !plan.contains("SCAN orders"),
        "search must not scan the table: {plan}"
    );

    // Export writes every filtered row, not one page.
    let dict = StateDictionary::default();
    let csv_path = dir.path().join("out.csv");
    let tz = chrono::FixedOffset::east_opt(8 * 3600).unwrap();
    let mut ticks = 0;
    let n = paydesk_reports::export::export(
        &Orders::on(&conn),
        &usd_success,
        &csv_path,
        paydesk_core::output::Existing::Replace,
        tz,
        &dict,
        |_, _| ticks += 1,
    )
    .unwrap();
    assert_eq!(n, 1000);
    assert!(ticks >= 1);
    let mut rd = csv::Reader::from_path(&csv_path).unwrap();
    assert_eq!(
        rd.headers().unwrap().iter().collect::<Vec<_>>(),
        [
            paydesk_reports::export::HEADERS.as_slice(),
            &[paydesk_reports::export::OUTSIDE_TEAM_HEADER]
        ]
        .concat()
    );
    let rows: Vec<csv::StringRecord> = rd.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 1000);
    // Listed orders carry their day only: written as a UTC day, never as a midnight.
    assert_eq!(&rows[0][3], "UTC");
    assert_eq!(rows[0][2].len(), "2026-11-23".len(), "{}", &rows[0][2]);
    assert_eq!(&rows[0][5], "success");
    assert_eq!(&rows[0][18], "", "the kind is not given by the gateway");
    assert_eq!(
        &rows[0][20], "",
        "a single desk's cache flags no order outside a team"
    );
    let xlsx = dir.path().join("out.xlsx");
    assert_eq!(
        paydesk_reports::export::export(
            &Orders::on(&conn),
            &usd_success,
            &xlsx,
            paydesk_core::output::Existing::Replace,
            tz,
            &dict,
            |_, _| {}
        )
        .unwrap(),
        1000
    );
    assert!(std::fs::read(&xlsx).unwrap().starts_with(b"PK"));
    assert!(
        paydesk_reports::export::export(
            &Orders::on(&conn),
            &usd_success,
            &dir.path().join("out.txt"),
            paydesk_core::output::Existing::Replace,
            tz,
            &dict,
            |_, _| {}
        )
        .is_err()
    );
}

fn record(n: usize) -> Record<'static> {
    Record {
        profile: "p",
        operator: "ana",
        operation: "v2.payout",
        identifiers: format!("merOrderNo=M{n}"),
        result: "ok".into(),
        latency_ms: 12,
    }
}

const AUDIT_KEY: [u8; 32] = [7; 32];

/// How rows were chained before the key: SHA-256 over the previous hash and the content.
fn plain(prev: &str, content: &str) -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(prev.as_bytes());
    h.update(b"\n");
    h.update(content.as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// What someone with write access to the database, but not to the keyring, can do to
/// the audit log: each is caught, naming the row.
#[test]
fn the_audit_chain_detects_an_edit_a_deletion_and_a_truncation() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.sqlite");
    let conn = db::open(&path, Durability::Journal).unwrap();
    let mut anchor: Option<audit::Anchor> = None;
    for n in 0..20 {
        anchor = Some(
            AuditLog::on(&conn)
                .append(record(n), &AUDIT_KEY, anchor.as_ref())
                .unwrap()
                .1,
        );
    }
    let anchor = anchor.unwrap();
    assert_eq!(
        (anchor.first_keyed, anchor.count, anchor.last_id),
        (1, 20, 20)
    );
    let ok = AuditLog::on(&conn)
        .verify(&AUDIT_KEY, Some(&anchor))
        .unwrap();
    assert!(ok.ok && ok.rows == 20, "{ok:?}");
    assert_eq!((ok.keyed_from, ok.anchored_rows), (Some(1), Some(20)));
    let check = |c: &Connection| AuditLog::on(c).verify(&AUDIT_KEY, Some(&anchor)).unwrap();

    let copy = |name: &str| {
        let p = dir.path().join(name);
        conn.execute("VACUUM INTO ?1", [p.to_str().unwrap()])
            .unwrap();
        Connection::open(p).unwrap()
    };
    let edited = copy("edited.sqlite");
    edited
        .execute("UPDATE audit_log SET result = 'E1012' WHERE id = 7", [])
        .unwrap();
    let c = check(&edited);
    assert_eq!((c.ok, c.broken_at), (false, Some(7)), "{c:?}");

    let deleted = copy("deleted.sqlite");
    deleted
        .execute("DELETE FROM audit_log WHERE id = 12", [])
        .unwrap();
    let c = check(&deleted);
    assert_eq!((c.ok, c.broken_at), (false, Some(12)), "{c:?}");

    // The last rows and the head record, made consistent again: the keyring's count
    // still says 20.
    let truncated = copy("truncated.sqlite");
    truncated
        .execute_batch(
            "DELETE FROM audit_log WHERE id > 15;
             UPDATE audit_head SET last_id = 15, count = 15,
               last_hash = (SELECT hash FROM audit_log WHERE id = 15);",
        )
        .unwrap();
    let c = check(&truncated);
    assert_eq!((c.ok, c.broken_at), (false, Some(16)), "{c:?}");
    assert!(c.problem.unwrap().contains("keyring recorded 20 rows"));

    // The next entry is not written on top of the cut: the log is not continued, so
    // the keyring's record (and the alarm) stands.
    let cut = truncated;
    let err = AuditLog::on(&cut)
        .append(record(99), &AUDIT_KEY, Some(&anchor))
        .unwrap_err();
    assert!(err.to_string().contains("not continued"), "{err}");
    assert!(!check(&cut).ok);
    // An entry that could not be written is reported until someone looks into it.
    let c = AuditLog::on(&conn)
        .verify_with_alert(
            &AUDIT_KEY,
            Some(&anchor),
            Some("v2.payout at noon: disk full".into()),
        )
        .unwrap();
    assert!(
        !c.ok && c.problem.unwrap().contains("incomplete"),
        "{:?}",
        c.alert
    );

    // Both tables emptied: caught, and not restarted from row 1 either.
    let emptied = copy("emptied.sqlite");
    emptied
        .execute_batch("DELETE FROM audit_log; DELETE FROM audit_head;")
        .unwrap();
    let c = check(&emptied);
    assert!(!c.ok && c.rows == 0, "{c:?}");
    assert!(
        AuditLog::on(&emptied)
            .append(record(0), &AUDIT_KEY, Some(&anchor))
            .is_err()
    );

    // A row rewritten and the chain after it recomputed with plain SHA-256 (what the
    // old chain allowed): the keyed seal does not match.
    let rechained = copy("rechained.sqlite");
    rechained
        .execute("UPDATE audit_log SET result = 'forged' WHERE id = 20", [])
        .unwrap();
    let forged: String = {
        let (prev, at): (String, i64) = rechained
            .query_row(
                "SELECT prev_hash, at FROM audit_log WHERE id = 20",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        let content = serde_json::json!([
            20,
            at,
            "p",
            "ana",
            "v2.payout",
            "merOrderNo=M19",
            "forged",
            12
        ]);
        plain(&prev, &content.to_string())
    };
    rechained
        .execute("UPDATE audit_log SET hash = ?1 WHERE id = 20; ", [&forged])
        .unwrap();
    rechained
        .execute("UPDATE audit_head SET last_hash = ?1", [&forged])
        .unwrap();
    let c = check(&rechained);
    assert_eq!((c.ok, c.broken_at), (false, Some(20)), "{c:?}");

    // A log begun by an older version (plain SHA-256 rows, no anchor) goes on keyed:
    // the older rows are checked by hash, the new ones by their seal.
    let legacy = copy("legacy.sqlite");
    let legacy = legacy;
    legacy
        .execute_batch(
            "DELETE FROM audit_log WHERE id > 3; UPDATE audit_head SET last_id = 3, count = 3;",
        )
        .unwrap();
    let mut prev = "0".repeat(64);
    for id in 1..=3_i64 {
        let (at, ops): (i64, String) = legacy
            .query_row(
                "SELECT at, identifiers FROM audit_log WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        let content = serde_json::json!([id, at, "p", "ana", "v2.payout", ops, "ok", 12]);
        let hash = plain(&prev, &content.to_string());
        legacy
            .execute(
                "UPDATE audit_log SET prev_hash = ?1, hash = ?2 WHERE id = ?3",
                rusqlite::params![prev, hash, id],
            )
            .unwrap();
        prev = hash;
    }
    legacy
        .execute("UPDATE audit_head SET last_hash = ?1", [&prev])
        .unwrap();
    let c = AuditLog::on(&legacy).verify(&AUDIT_KEY, None).unwrap();
    assert!(
        c.ok && c.keyed_from.is_none() && c.anchored_rows.is_none(),
        "{c:?}"
    );
    let (_, first) = AuditLog::on(&legacy)
        .append(record(3), &AUDIT_KEY, None)
        .unwrap();
    assert_eq!((first.first_keyed, first.count), (4, 4));
    let c = AuditLog::on(&legacy)
        .verify(&AUDIT_KEY, Some(&first))
        .unwrap();
    assert!(c.ok && c.keyed_from == Some(4), "{c:?}");

    // The wrong key (another profile's) does not verify either.
    let c = AuditLog::on(&conn).verify(&[8; 32], Some(&anchor)).unwrap();
    assert!(!c.ok);
}

#[test]
fn anchored_deep_pages_equal_offset_pages() {
    let dir = tempfile::tempdir().unwrap();
    let conn = db::open(&dir.path().join("deep.sqlite"), Durability::Cache).unwrap();
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
        Orders::on(&conn)
            .upsert_items(1, chunk, (i as i64 % 3) * 1000, true)
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
            sort: SortKey::TradeNo,
            descending: true,
            states: vec![5],
            ..OrderFilter::default()
        },
    ];
    for f in &filters {
        let anchors = Orders::on(&conn).anchors(f).unwrap();
        let total = Orders::on(&conn).count(f).unwrap();
        assert_eq!(anchors.len() as i64, total / orders::ANCHOR_EVERY);
        assert_eq!(anchors.total, total);
        for offset in [0, 9_999, 10_000, 10_050, 19_990, 20_000, total - 50] {
            let plain = Orders::on(&conn).query(f, offset, 100).unwrap();
            let anchored = Orders::on(&conn)
                .query_anchored(f, &anchors, offset, 100)
                .unwrap();
            assert_eq!(plain, anchored, "{f:?} at {offset}");
        }
    }
}

/// The text of one file inside an XLSX (a zip).
fn xlsx_part(path: &std::path::Path, part: &str) -> String {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut zip.by_name(part).unwrap(), &mut text).unwrap();
    text
}

#[test]
fn exports_neutralise_formula_cells_and_keep_amounts_typed() {
    let dir = tempfile::tempdir().unwrap();
    let conn = db::open(&dir.path().join("c.sqlite"), Durability::Cache).unwrap();
    let hostile = "=HYPERLINK(\"https://evil.example\",\"Refund\")";
    let items = vec![
        OrderListItem {
            message: hostile.into(),
            refusal_pay_reason: "@SUM(A1:A9)".into(),
            ..item(1, 5, "USD", "12.5")
        },
        OrderListItem {
            message: "-2+3".into(),
            ..item(2, 5, "JPY", "1500")
        },
        item(3, 5, "BHD", "1.234"),
    ];
    Orders::on(&conn).upsert_items(1, &items, 0, true).unwrap();
    let all = OrderFilter::default();
    let dict = StateDictionary::default();
    let tz = chrono::FixedOffset::east_opt(0).unwrap();

    let csv_path = dir.path().join("orders.csv");
    paydesk_reports::export::export(
        &Orders::on(&conn),
        &all,
        &csv_path,
        paydesk_core::output::Existing::Replace,
        tz,
        &dict,
        |_, _| {},
    )
    .unwrap();
    let rows: Vec<csv::StringRecord> = csv::Reader::from_path(&csv_path)
        .unwrap()
        .records()
        .map(Result::unwrap)
        .collect();
    let by_no = |no: &str| rows.iter().find(|r| &r[1] == no).unwrap().clone();
    let one = by_no("M-000001");
    assert_eq!(
        &one[17],
        format!("'{hostile}"),
        "a formula is written as text"
    );
    assert_eq!(&one[16], "'@SUM(A1:A9)");
    assert_eq!(&by_no("M-000002")[17], "'-2+3");
    assert_eq!(&one[8], "12.5", "a plain amount stays a number");

    let xlsx = dir.path().join("orders.xlsx");
    paydesk_reports::export::export(
        &Orders::on(&conn),
        &all,
        &xlsx,
        paydesk_core::output::Existing::Replace,
        tz,
        &dict,
        |_, _| {},
    )
    .unwrap();
    let sheet = xlsx_part(&xlsx, "xl/worksheets/sheet1.xml");
    assert!(!sheet.contains("<f>"), "no cell is a formula: {sheet}");
    assert!(
        sheet.contains("HYPERLINK"),
        "the message is kept, as a string"
    );
    // Amounts are numbers (`<v>`, no string type), shown with the currency's digits.
    for amount in ["12.5", "1500", "1.234"] {
        assert!(
            sheet.contains(&format!("<v>{amount}</v>")),
            "{amount} as a number: {sheet}"
        );
    }
    let styles = xlsx_part(&xlsx, "xl/styles.xml");
    for pattern in ["#,##0.00", "#,##0.000", "formatCode=\"#,##0\""] {
        assert!(styles.contains(pattern), "{pattern}: {styles}");
    }
}

/// Orders the journal made before the desk cached what it knew of them get their kind
/// and time when the database is migrated; an exported made order has its time of day
/// in the asked zone, a listed one its day only.
#[test]
fn migration_8_dates_and_kinds_orders_the_journal_made() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m8.sqlite");
    {
        let conn = db::open_with(&path, Durability::Cache, &db::MIGRATIONS[..7]).unwrap();
        conn.execute_batch(
            "INSERT INTO orders (trade_no, mer_no, mer_order_no, state, currency, source_amount, amount_e4, created_at, synced_at)
             VALUES ('T1', 1, 'PO-1', 2, 'MXN', '10.00', 100000, 1795000000000, 1795000000000),
                    ('T2', 1, 'X-2', 5, 'MXN', '20.00', 200000, 1795000000000, 1795000000000);
             INSERT INTO journal (profile, operation, mer_order_no, request, summary, status, trade_no, created_at, updated_at)
             VALUES ('p', 'v2.payout', 'PO-1', '{}', 's', 'accepted', 'T1', 1795000123456, 1795000124000);",
        )
        .unwrap();
    }
    let conn = db::open(&path, Durability::Cache).unwrap();
    let made = Orders::on(&conn).get("T1").unwrap().unwrap();
    assert_eq!(made.kind, Some(orders::OrderKind::Payout));
    assert_eq!(made.made_at, Some(1_795_000_123_456));
    let listed = Orders::on(&conn).get("T2").unwrap().unwrap();
    assert_eq!((listed.kind, listed.made_at), (None, None));

    let csv_path = dir.path().join("m8.csv");
    let tz = chrono::FixedOffset::east_opt(8 * 3600).unwrap();
    let by_trade_no = OrderFilter {
        sort: SortKey::TradeNo,
        ..OrderFilter::default()
    };
    let dict = StateDictionary::default();
    paydesk_reports::export::export(
        &Orders::on(&conn),
        &by_trade_no,
        &csv_path,
        paydesk_core::output::Existing::Replace,
        tz,
        &dict,
        |_, _| {},
    )
    .unwrap();
    let rows: Vec<csv::StringRecord> = csv::Reader::from_path(&csv_path)
        .unwrap()
        .records()
        .map(Result::unwrap)
        .collect();
    // T1 was made at 2026-11-18 11:08:43.456 UTC: 19:08:43 at UTC+08:00.
    assert_eq!(
        (&rows[0][0], &rows[0][2], &rows[0][3]),
        ("T1", "2026-11-18 19:08:43", "UTC+08:00")
    );
    assert_eq!(&rows[0][18], "payout");
    assert_eq!(
        (&rows[1][0], &rows[1][2], &rows[1][3]),
        ("T2", "2026-11-18", "UTC")
    );
}

/// What the journal knows is added only to the order it made: a cached row under the
/// same trade number with another order number is someone else's and keeps its data;
/// without a state from the answer, nothing is cached from the journal alone.
#[test]
fn an_order_made_here_never_relabels_another_and_never_gets_an_invented_state() {
    let dir = tempfile::tempdir().unwrap();
    let conn = db::open(&dir.path().join("made.sqlite"), Durability::Cache).unwrap();
    let theirs = item(9, 5, "MXN", "7.00");
    Orders::on(&conn)
        .upsert_items(1, std::slice::from_ref(&theirs), 1_795_000_000_000, true)
        .unwrap();
    let made = |trade_no: &str, state: Option<i64>| orders::MadeOrder {
        trade_no: trade_no.into(),
        mer_order_no: "PO-MINE".into(),
        kind: orders::OrderKind::Payout,
        method: "CLABE".into(),
        currency: "MXN".into(),
        amount: "10.00".parse().unwrap(),
        state,
        made_at: 1_795_000_123_456,
    };
    // The answer named a trade number the cache holds for another order: left alone.
    assert!(
        !Orders::on(&conn)
            .record_made(1, &made(&theirs.trade_no, Some(2)))
            .unwrap()
    );
    let row = Orders::on(&conn).get(&theirs.trade_no).unwrap().unwrap();
    assert_eq!(
        (row.kind, row.made_at, row.mer_order_no.as_str()),
        (None, None, theirs.mer_order_no.as_str())
    );
    // No state given and nothing cached: nothing is written.
    assert!(
        !Orders::on(&conn)
            .record_made(1, &made("T-NEW", None))
            .unwrap()
    );
    assert!(Orders::on(&conn).get("T-NEW").unwrap().is_none());
    // With a state: cached at once, as a payout made at its time, not yet listed.
    assert!(
        Orders::on(&conn)
            .record_made(1, &made("T-NEW", Some(2)))
            .unwrap()
    );
    let mine = Orders::on(&conn).get("T-NEW").unwrap().unwrap();
    assert_eq!(
        (mine.state, mine.kind, mine.made_at, mine.synced_at),
        (
            2,
            Some(orders::OrderKind::Payout),
            Some(1_795_000_123_456),
            None
        )
    );
}
