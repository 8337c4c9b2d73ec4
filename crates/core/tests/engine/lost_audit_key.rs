//! A desk whose audit key was lost from the real keyring (a reset, a new machine) while
//! its log holds rows sealed with it: it does not open with a new key made in silence
//! (the old chain would then read as tampered with), it says what is missing, and a new
//! log keeps the old rows, readable, and starts a chain that verifies.

#![allow(clippy::unwrap_used)]

use crate::common;

use paydesk_core::desk::{NEW_LOG_OPERATION, audit_key_lost, start_new_audit_log};
use paydesk_core::{CoreError, Desk, Endpoint};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_audit_key_is_named_and_a_new_log_keeps_the_old_rows() {
    let f = common::Fixture::new("lak").await;
    let desk = f.desk().await;
    for c in ["USD", "MXN", "USD"] {
        let _ = desk.money().balance(c).await;
    }
    let old = desk
        .journal()
        .audit_list(&paydesk_core::audit::AuditFilter::default())
        .unwrap();
    assert!(old.len() >= 3, "the queries were recorded: {old:?}");
    assert!(desk.journal().audit_verify().unwrap().ok);
    let ids: Vec<i64> = old.iter().map(|e| e.id).collect();
    drop(desk);

    // The key goes, as a keyring reset takes it.
    f.secrets.delete_audit_key(&f.name).unwrap();

    // Opening is refused, naming what is missing and the way on, and no key is made.
    let e = Desk::open(&f.home, f.secrets.clone(), &f.name, Endpoint::Profile).unwrap_err();
    let CoreError::MissingSecret { message } = &e else {
        panic!("not a missing secret: {e:?}");
    };
    assert!(message.contains("audit key"), "{message}");
    assert!(
        message.contains(&format!("{} rows sealed", old.len())),
        "{message}"
    );
    assert!(message.contains("new-log"), "{message}");
    assert!(f.secrets.audit_key_kept(&f.name).unwrap().is_none());
    // Asked again, the same answer (nothing was made the first time).
    assert!(Desk::open(&f.home, f.secrets.clone(), &f.name, Endpoint::Profile).is_err());
    let lost = audit_key_lost(&f.home, &f.secrets, &f.name)
        .unwrap()
        .unwrap();
    assert_eq!(lost.sealed_rows, old.len() as i64);

    // A new log: the old rows are set aside, as written.
    let new = start_new_audit_log(&f.home, &f.secrets, &f.name).unwrap();
    assert_eq!(new.archive.rows, old.len() as i64);
    assert_eq!(new.first_row.id, 1);
    assert_eq!(new.first_row.operation, NEW_LOG_OPERATION);
    assert!(
        new.first_row
            .identifiers
            .contains(&format!("archive={}", new.archive.archive)),
        "{:?}",
        new.first_row
    );
    // Once the key is back, a second new log is refused: a checkable log stays.
    assert!(start_new_audit_log(&f.home, &f.secrets, &f.name).is_err());
    assert!(
        audit_key_lost(&f.home, &f.secrets, &f.name)
            .unwrap()
            .is_none()
    );

    // The desk opens; its new chain verifies; the old rows are readable in the archive.
    let desk = f.desk().await;
    let _ = desk.money().balance("USD").await;
    let check = desk.journal().audit_verify().unwrap();
    assert!(check.ok, "{check:?}");
    assert!(check.rows >= 2, "{check:?}");
    let first = desk
        .journal()
        .audit_list(&paydesk_core::audit::AuditFilter {
            operation: Some(NEW_LOG_OPERATION.into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].id, 1);
    let archives = desk.journal().audit_archives().unwrap();
    assert_eq!(archives.len(), 1);
    assert!(archives[0].reason.contains("missing"), "{:?}", archives[0]);
    let kept = desk
        .journal()
        .audit_archived_rows(archives[0].archive, 10_000)
        .unwrap();
    assert_eq!(kept, old, "the old rows are kept exactly as they were");
    let kept_ids: Vec<i64> = kept.iter().map(|e| e.id).collect();
    assert_eq!(kept_ids, ids);
}

/// Activity's check of the audit chain (issue 34): the first reads the whole chain and
/// the keyring keeps how far it was found sealed; later ones read only the rows after
/// that, so an old row changed after it was checked is found by the whole chain's check:
/// at once by `paydesk audit verify` (`audit_verify`), and by Activity's check the first
/// time a day after the last whole one, and from then on at every check.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn activitys_check_reads_the_newer_rows_and_the_whole_chain_once_a_day() {
    let f = common::Fixture::new("acd").await;
    let mut desk = f.desk().await;
    let clock = std::sync::Arc::new(paydesk_core::clock::ShiftedClock::default());
    desk.set_clock(clock.clone());
    for c in ["USD", "MXN"] {
        let _ = desk.money().balance(c).await;
    }
    assert!(f.secrets.audit_checked(&f.name).unwrap().is_none());
    let c = desk.journal().audit_check().unwrap();
    assert!(c.ok && c.rows >= 2, "{c:?}");
    let kept = f.secrets.audit_checked(&f.name).unwrap().unwrap();
    assert_eq!(
        kept.last_id, c.rows,
        "the keyring keeps how far the whole check went"
    );

    // An old row, already checked, is changed in the database; a newer row is added.
    let db = rusqlite::Connection::open(f.home.database(&f.name)).unwrap();
    db.execute("UPDATE audit_log SET result = 'forged' WHERE id = 1", [])
        .unwrap();
    let _ = desk.money().balance("USD").await;
    let c = desk.journal().audit_check().unwrap();
    assert!(
        c.ok,
        "Activity's check reads only the rows after row {}: {c:?}",
        kept.last_id
    );
    assert!(f.secrets.audit_checked(&f.name).unwrap().unwrap().last_id > kept.last_id);

    // A newer row changed: Activity's check finds it.
    let newest: i64 = db
        .query_row("SELECT MAX(id) FROM audit_log", [], |r| r.get(0))
        .unwrap();
    let _ = desk.money().balance("MXN").await;
    db.execute(
        "UPDATE audit_log SET result = 'forged' WHERE id = ?1",
        [newest + 1],
    )
    .unwrap();
    let c = desk.journal().audit_check().unwrap();
    assert!(!c.ok, "{c:?}");
    // It read the whole chain then (what it found broken after the row checked): the
    // old row is where the chain breaks, and no later check starts from a checked row.
    assert_eq!(c.broken_at, Some(1), "{c:?}");
    assert!(f.secrets.audit_checked(&f.name).unwrap().is_none());

    // The whole chain's check finds the old row at once.
    let w = desk.journal().audit_verify().unwrap();
    assert_eq!((w.ok, w.broken_at), (false, Some(1)), "{w:?}");
}

/// A day after the last whole check, Activity's check reads the whole chain again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn activitys_check_reads_the_whole_chain_a_day_after_the_last_whole_check() {
    let f = common::Fixture::new("acw").await;
    let mut desk = f.desk().await;
    let clock = std::sync::Arc::new(paydesk_core::clock::ShiftedClock::default());
    desk.set_clock(clock.clone());
    let _ = desk.money().balance("USD").await;
    assert!(desk.journal().audit_check().unwrap().ok);
    let db = rusqlite::Connection::open(f.home.database(&f.name)).unwrap();
    db.execute("UPDATE audit_log SET result = 'forged' WHERE id = 1", [])
        .unwrap();
    assert!(desk.journal().audit_check().unwrap().ok, "within the day");
    clock.advance(std::time::Duration::from_secs(24 * 3600));
    let c = desk.journal().audit_check().unwrap();
    assert_eq!((c.ok, c.broken_at), (false, Some(1)), "{c:?}");
}
