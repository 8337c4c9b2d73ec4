//! `paydesk audit new-log` as a user runs it after a keyring reset took the audit key:
//! every desk command refuses (exit 4), naming the key and the way on; the new log keeps
//! the old rows in an archive the CLI reads, and the new chain verifies.

#![allow(clippy::unwrap_used)]

use crate::common;

use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_audit_key_is_refused_then_a_new_log_keeps_the_old_rows() {
    let (mut env, _running, _key) = common::setup_with(&[]).await;
    env.ok(&["orders", "sync", "--days", "2"]);
    let old: Value =
        serde_json::from_str(&env.ok(&["--json", "audit", "list", "--limit", "10000"])).unwrap();
    let old = old.as_array().unwrap().clone();
    assert!(!old.is_empty());

    let secrets = paydesk_core::Secrets::new(std::sync::Arc::new(
        paydesk_core::KeyringStore::open(&env.service).unwrap(),
    ));
    secrets.delete_audit_key("ext").unwrap();

    let out = env.run(&["audit", "list"], "");
    assert_eq!(out.status.code(), Some(4));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("audit key of profile ext"), "{err}");
    assert!(err.contains("paydesk audit new-log"), "{err}");

    let started = env.ok(&["audit", "new-log"]);
    assert!(started.contains("kept as archive 1"), "{started}");
    // Once done, it is not done again: the new log can be checked.
    let again = env.run(&["audit", "new-log"], "");
    assert_eq!(again.status.code(), Some(2), "{:?}", again);

    assert!(
        env.ok(&["audit", "verify"])
            .starts_with("audit chain intact")
    );
    let archives: Value = serde_json::from_str(&env.ok(&["--json", "audit", "archived"])).unwrap();
    assert_eq!(archives[0]["archive"], 1);
    assert_eq!(archives[0]["rows"].as_i64().unwrap(), old.len() as i64);
    let kept: Value = serde_json::from_str(&env.ok(&[
        "--json",
        "audit",
        "archived",
        "--archive",
        "1",
        "--limit",
        "10000",
    ]))
    .unwrap();
    assert_eq!(kept.as_array().unwrap(), &old, "the old rows as they were");
    secrets.forget("ext").unwrap();
}
