//! A bulk run continues the audit chain the database holds: the keyring's anchor or the
//! one the desk last wrote, whichever the log still reaches, never the one with more rows.
//! A log set aside and started again (`start_new_audit_log`) counts from one.

#![allow(clippy::unwrap_used)]

use crate::common;

use paydesk_core::audit::Record;
use paydesk_core::bulk;
use paydesk_core::store::Store;

const HEADER: &str = "type,amount,currency,account,firstName,lastName,country,merOrderNo\n";

fn ctx() -> bulk::BulkContext {
    bulk::BulkContext {
        mer_no: common::MER,
        notify_url: "https://desk.example/n".into(),
        ip_address: "203.0.113.7".into(),
    }
}

fn payroll(rows: usize, cents: usize) -> String {
    let mut csv = String::from(HEADER);
    for i in 0..rows {
        csv.push_str(&format!(
            "clabe,{}.{:02},MXN,002010077777777771,Ana,Lima,,\n",
            10 + i,
            cents
        ));
    }
    csv
}

/// A desk that stayed open while its profile's log was set aside and started again (here
/// under the same key, so that only the anchor's choice is tested): its next bulk run
/// continues the new chain from the keyring's anchor. Before, the desk's own anchor of
/// the old log won by its larger row count: the run's audit rows were refused ("the log
/// holds 1 rows, but the keyring recorded ...") and that stale anchor was written over
/// the keyring's, so the new log read as cut.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bulk_run_after_the_log_was_started_again_continues_the_new_chain() {
    let f = common::Fixture::new("bulkanchor").await;
    let mut m = f
        .running
        .sandbox
        .with_state(|s| s.merchants[&common::MER].clone());
    *m.opening.entry("MXN".into()).or_default() += rust_decimal::Decimal::from(1_000_000);
    f.running.sandbox.add_merchant(m);
    let desk = f.desk().await;

    let run = |rows: usize, cents: usize, name: &str| {
        let path = f.dir.path().join(name);
        std::fs::write(&path, payroll(rows, cents)).unwrap();
        bulk::read(&path, &ctx()).unwrap()
    };
    let first = run(6, 1, "first.csv");
    let plan = desk.money().bulk_plan(&first).unwrap();
    desk.money()
        .bulk_payouts(&first, false, Some(&plan.digest), |_, _| {})
        .await
        .unwrap();
    let before = desk.journal().audit_verify().unwrap();
    assert!(before.ok, "{before:?}");
    assert!(before.rows >= 6, "{before:?}");

    // The log set aside and begun again while the desk is open, as
    // `start_new_audit_log` does (the database first, then the keyring's anchor).
    let store = Store::open_sqlite(&f.home.database(&f.name)).unwrap();
    let key = f.secrets.audit_key(&f.name).unwrap();
    let (_, _, anchor) = store
        .audit_archive_and_restart(
            Record {
                profile: &f.name,
                operator: "test",
                operation: "audit.newLog",
                identifiers: String::new(),
                result: "ok".into(),
                latency_ms: 0,
            },
            "a test sets the log aside",
            key.expose(),
        )
        .unwrap();
    f.secrets.set_audit_anchor(&f.name, &anchor).unwrap();
    assert_eq!(anchor.count, 1);

    let second = run(5, 2, "second.csv");
    let plan = desk.money().bulk_plan(&second).unwrap();
    let results = desk
        .money()
        .bulk_payouts(&second, false, Some(&plan.digest), |_, _| {})
        .await
        .unwrap();
    assert_eq!(results.len(), 5);

    // A desk opened now checks the new log against the keyring: whole, its first row and
    // then the second run's rows (one per payout, and the balance the run asked again
    // before sending, issue 35).
    let fresh = f.desk().await;
    let check = fresh.journal().audit_verify().unwrap();
    assert!(check.ok, "{check:?}");
    let rows = fresh
        .journal()
        .audit_list(&paydesk_core::audit::AuditFilter {
            limit: Some(1000),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(check.rows as usize, rows.len(), "{check:?} {rows:?}");
    let payouts = rows
        .iter()
        .filter(|r| r.operation.contains("payout"))
        .count();
    assert_eq!(payouts, 5, "{rows:?}");
    assert!(
        rows.iter().any(|r| r.operation == "audit.newLog"),
        "the new log's first row: {rows:?}"
    );
    let kept = f.secrets.audit_anchor(&f.name).unwrap().unwrap();
    assert_eq!(kept.count, check.rows, "the keyring's anchor: {kept:?}");
    assert!(f.secrets.audit_alert(&f.name).unwrap().is_none());
}
