//! The audit chain's check of the rows after one already found sealed (what Activity
//! runs, issue 34): a row added, changed or removed after that row is caught as by the
//! whole chain's check; a row at or before it changed after it was checked is not read
//! again by this check, and is caught by the whole chain's check (which the desk runs
//! at the first check of each day, when that row no longer has its hash, and on
//! `paydesk audit verify`).

#![allow(clippy::unwrap_used)]

use paydesk_store::prelude::AuditStore;
use paydesk_store_sqlite::audit::{Anchor, AuditLog, Record};
use paydesk_store_sqlite::{self as db, Durability};
use rusqlite::Connection;

const KEY: [u8; 32] = [9; 32];

fn record(n: usize) -> Record<'static> {
    Record {
        profile: "p",
        operator: "op",
        operation: "balance.query",
        identifiers: format!("currency=USD n={n}"),
        result: "ok".into(),
        latency_ms: n as i64,
    }
}

fn append(conn: &Connection, from: usize, to: usize, mut anchor: Option<Anchor>) -> Anchor {
    for n in from..to {
        anchor = Some(
            AuditLog::on(conn)
                .append(record(n), &KEY, anchor.as_ref())
                .unwrap()
                .1,
        );
    }
    anchor.unwrap()
}

fn hash(conn: &Connection, id: i64) -> String {
    conn.query_row("SELECT hash FROM audit_log WHERE id = ?1", [id], |r| {
        r.get(0)
    })
    .unwrap()
}

#[test]
fn the_rows_after_a_checked_row_are_checked_and_an_old_change_is_left_to_the_whole_check() {
    let dir = tempfile::tempdir().unwrap();
    let conn = db::open(&dir.path().join("j.sqlite"), Durability::Journal).unwrap();
    let anchor = append(&conn, 0, 30, None);
    let log = AuditLog::on(&conn);
    let whole = log.verify(&KEY, Some(&anchor)).unwrap();
    assert!(whole.ok && whole.rows == 30, "{whole:?}");
    let h30 = hash(&conn, 30);

    // Nothing new: the same answer, from row 30's hash alone.
    let c = log
        .verify_since(&KEY, Some(&anchor), 30, &h30)
        .unwrap()
        .unwrap();
    assert_eq!(c, whole);

    // Five rows more: checked.
    let anchor = append(&conn, 30, 35, Some(anchor));
    let c = log
        .verify_since(&KEY, Some(&anchor), 30, &h30)
        .unwrap()
        .unwrap();
    assert!(c.ok && c.rows == 35, "{c:?}");
    assert_eq!(c, log.verify(&KEY, Some(&anchor)).unwrap());

    let copy = |name: &str| {
        let p = dir.path().join(name);
        conn.execute("VACUUM INTO ?1", [p.to_str().unwrap()])
            .unwrap();
        Connection::open(p).unwrap()
    };

    // A newer row changed: caught where the whole check catches it.
    let newer = copy("newer.sqlite");
    newer
        .execute("UPDATE audit_log SET result = 'forged' WHERE id = 33", [])
        .unwrap();
    let c = AuditLog::on(&newer)
        .verify_since(&KEY, Some(&anchor), 30, &h30)
        .unwrap()
        .unwrap();
    assert_eq!((c.ok, c.broken_at), (false, Some(33)), "{c:?}");

    // The newest rows cut (and the head record made to agree): the keyring's anchor
    // still counts 35.
    let cut = copy("cut.sqlite");
    let h33 = hash(&cut, 33);
    cut.execute_batch("DELETE FROM audit_log WHERE id > 33;")
        .unwrap();
    cut.execute(
        "UPDATE audit_head SET last_id = 33, last_hash = ?1, count = 33",
        [&h33],
    )
    .unwrap();
    let c = AuditLog::on(&cut)
        .verify_since(&KEY, Some(&anchor), 30, &h30)
        .unwrap()
        .unwrap();
    assert!(!c.ok && c.broken_at == Some(34), "{c:?}");

    // The row checked last changed: this check cannot start from it.
    let last = copy("last.sqlite");
    last.execute(
        "UPDATE audit_log SET hash = ?1 WHERE id = 30",
        [&"0".repeat(64)],
    )
    .unwrap();
    assert!(
        AuditLog::on(&last)
            .verify_since(&KEY, Some(&anchor), 30, &h30)
            .unwrap()
            .is_none()
    );

    // An old row, already checked, changed: not read again by this check, which
    // answers for the rows after row 30; the whole chain's check finds it.
    let old = copy("old.sqlite");
    old.execute("UPDATE audit_log SET result = 'forged' WHERE id = 7", [])
        .unwrap();
    let c = AuditLog::on(&old)
        .verify_since(&KEY, Some(&anchor), 30, &h30)
        .unwrap()
        .unwrap();
    assert!(c.ok, "rows 1 to 30 are not read again: {c:?}");
    let c = AuditLog::on(&old).verify(&KEY, Some(&anchor)).unwrap();
    assert_eq!((c.ok, c.broken_at), (false, Some(7)), "{c:?}");
}
