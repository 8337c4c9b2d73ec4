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
