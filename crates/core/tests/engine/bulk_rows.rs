//! A bulk file run twice, as finance does with a payroll: a row's identity is what its
//! payout sends (a CLABE row's name is not sent, so fixing it pays nobody twice and is
//! never held for a second payment), the names in the file are kept for the screen, and
//! the second run's results say what THIS run sent.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::BTreeMap;

use paydesk_core::bulk::{self, RowAction, RowStatus};

const HEADER: &str = "type,amount,currency,account,firstName,lastName,country,merOrderNo\n";

fn ctx() -> bulk::BulkContext {
    bulk::BulkContext {
        mer_no: common::MER,
        notify_url: "https://desk.example/n".into(),
        ip_address: "203.0.113.7".into(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_fixed_on_a_clabe_row_is_the_same_payout_and_a_rerun_counts_its_own_sends() {
    let f = common::Fixture::new("bulkid").await;
    let desk = f.desk().await;
    let path = f.dir.path().join("payroll.csv");
    let first = format!(
        "{HEADER}clabe,101.00,MXN,002010077777777771,Ana,Lima,,\n\
         clabe,102.00,MXN,002010077777777771,Bruno,Souza,,PO-BRUNO-1\n\
         card,13.50,USD,4111111111111111,Carla,Mendes,MX,\n"
    );
    std::fs::write(&path, &first).unwrap();
    let file = bulk::read(&path, &ctx()).unwrap();
    let plan = desk.money().bulk_plan(&file).unwrap();
    assert_eq!(plan.to_send, 3);
    let names: Vec<Option<&str>> = plan
        .rows
        .iter()
        .map(|r| r.name_in_file.as_deref())
        .collect();
    assert_eq!(
        names,
        vec![Some("Ana Lima"), Some("Bruno Souza"), Some("Carla Mendes")]
    );
    let results = desk
        .money()
        .bulk_payouts(&file, false, Some(&plan.digest), |_, _| {})
        .await
        .unwrap();
    assert!(
        results
            .iter()
            .all(|r| r.status == RowStatus::Accepted && r.this_run)
    );

    // The same payroll, Ana's last name fixed (a CLABE payout does not send it), Bruno's
    // amount changed under the number it was paid under (held for a confirmation), and
    // one new row.
    let second = format!(
        "{HEADER}clabe,101.00,MXN,002010077777777771,Ana,Lima Pereira,,\n\
         clabe,120.00,MXN,002010077777777771,Bruno,Souza,,PO-BRUNO-1\n\
         card,13.50,USD,4111111111111111,Carla,Mendes,MX,\n\
         clabe,104.00,MXN,002010077777777771,Dora,Reis,,\n"
    );
    std::fs::write(&path, &second).unwrap();
    let file = bulk::read(&path, &ctx()).unwrap();
    let plan = desk.money().bulk_plan(&file).unwrap();
    let actions: Vec<RowAction> = plan.rows.iter().map(|r| r.action).collect();
    assert_eq!(
        actions,
        vec![
            RowAction::Paid,
            RowAction::Held,
            RowAction::Paid,
            RowAction::Send
        ],
        "Ana's row is the payout already paid, not a new one held for a second payment"
    );
    assert_eq!(
        plan.rows[0].name_in_file.as_deref(),
        Some("Ana Lima Pereira")
    );
    let results = desk
        .money()
        .bulk_payouts(&file, false, Some(&plan.digest), |_, _| {})
        .await
        .unwrap();
    let sent_now = results.iter().filter(|r| r.this_run).count();
    let paid_before = results
        .iter()
        .filter(|r| !r.this_run && r.status == RowStatus::Accepted)
        .count();
    let held = results
        .iter()
        .filter(|r| r.status == RowStatus::Held)
        .count();
    assert_eq!((sent_now, paid_before, held), (1, 2, 1));
    // At the gateway: the first run's three and Dora's, nothing twice.
    assert_eq!(f.running.sandbox.with_state(|s| s.orders.len()), 4);
}

/// A CLABE row paid by a desk from before names stopped counting in a row's number, its
/// name edited since: neither the row's number now nor its number with the new name is
/// the one it went under, yet it is the payout already paid (the journal holds it under
/// its former number, a CLABE payout sends no name). Found paid, never sent again, even
/// when the operator confirms every held row; a second identical row is still a payout
/// of its own. Counted at the sandbox.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clabe_row_paid_under_its_former_number_is_not_paid_again_after_its_name_is_edited() {
    let f = common::Fixture::new("bulkformer").await;
    let desk = f.desk().await;
    let orders = || f.running.sandbox.with_state(|s| s.orders.len());
    // The number the older desk gave the row "Ana Lima": `B` and the first 10 bytes of
    // HMAC-SHA-256, under the profile's intent key, of the row's content with its name.
    let key = f.secrets.intent_key(&f.name).unwrap();
    let former = format!(
        "B{}",
        paydesk_core::journal::keyed_digest(
            key.expose(),
            "bulk|clabe|101|MXN|002010077777777771|Ana|Lima|#1",
            10
        )
    );
    let paid = desk
        .money()
        .payout_clabe(common::payout(&former, "101.00"))
        .await
        .unwrap();
    assert_eq!(paid.entry.status, paydesk_core::journal::Status::Accepted);
    assert_eq!(orders(), 1);

    // The file now: Ana's last name edited, and the same payout once more on a second row.
    let path = f.dir.path().join("payroll.csv");
    let edited = format!("{HEADER}clabe,101.00,MXN,002010077777777771,Ana,Lima Pereira,,\n");
    std::fs::write(&path, &edited).unwrap();
    let file = bulk::read(&path, &ctx()).unwrap();
    let plan = desk.money().bulk_plan(&file).unwrap();
    assert_eq!(plan.rows[0].action, RowAction::Paid, "{:?}", plan.rows[0]);
    assert_eq!(plan.rows[0].mer_order_no, former);
    assert_eq!((plan.to_send, plan.held), (0, 0));
    // The operator confirms everything the plan holds: nothing is.
    let results = desk
        .money()
        .bulk_payouts(&file, true, Some(&plan.digest_with_held), |_, _| {})
        .await
        .unwrap();
    assert_eq!(results[0].status, RowStatus::Accepted);
    assert!(!results[0].this_run);
    assert_eq!(orders(), 1, "paid once at the gateway");

    // Two identical rows: the first is the one paid, the second is sent.
    let two = format!(
        "{HEADER}clabe,101.00,MXN,002010077777777771,Ana,Lima Pereira,,\n\
         clabe,101.00,MXN,002010077777777771,Ana,Lima Pereira,,\n"
    );
    std::fs::write(&path, &two).unwrap();
    let file = bulk::read(&path, &ctx()).unwrap();
    let plan = desk.money().bulk_plan(&file).unwrap();
    let actions: Vec<RowAction> = plan.rows.iter().map(|r| r.action).collect();
    assert_eq!(actions, vec![RowAction::Paid, RowAction::Send]);
    desk.money()
        .bulk_payouts(&file, false, Some(&plan.digest), |_, _| {})
        .await
        .unwrap();
    assert_eq!(orders(), 2);
    // Run again: nothing more.
    let plan = desk.money().bulk_plan(&file).unwrap();
    assert_eq!((plan.to_send, plan.paid, plan.held), (0, 2, 0));
}

/// Gives the demo merchant enough MXN for every payout of a test.
fn fund(f: &common::Fixture) {
    let mut m = f
        .running
        .sandbox
        .with_state(|s| s.merchants[&common::MER].clone());
    *m.opening.entry("MXN".into()).or_default() += rust_decimal::Decimal::from(10_000_000);
    f.running.sandbox.add_merchant(m);
}

/// The fixture's profile with `payouts_in_flight` requests of a bulk run at once, on a
/// sandbox that takes a reused order number as a new order (so a row sent twice shows
/// as two orders there, whatever the journal says).
fn in_flight(f: &common::Fixture, n: u32) {
    let p = f.home.get(&f.name).unwrap();
    f.home
        .put(paydesk_core::Profile {
            sync: paydesk_core::profile::SyncSettings {
                payouts_in_flight: n,
                ..p.sync.clone()
            },
            ..p
        })
        .unwrap();
    f.running.sandbox.set_behaviour(paydesk_sandbox::Behaviour {
        accept_reused_order_no: true,
        list_lag_ms: 0,
        speaks: None,
    });
}

/// Orders at the sandbox per merchant order number.
fn at_gateway(f: &common::Fixture) -> std::collections::BTreeMap<String, usize> {
    f.running.sandbox.with_state(|s| {
        let mut m = std::collections::BTreeMap::new();
        for o in &s.orders {
            *m.entry(o.mer_order_no.clone()).or_insert(0) += 1;
        }
        m
    })
}

fn payroll(rows: usize) -> String {
    let mut csv = String::from(HEADER);
    for i in 0..rows {
        csv.push_str(&format!(
            "clabe,{}.{:02},MXN,002010077777777771,Ana,Lima,,\n",
            10 + i / 100,
            i % 100
        ));
    }
    csv
}

/// Eight requests in flight while a fifth of the answers are lost after the gateway
/// made the payout (and some come back "success" without a trade number): each of those
/// rows stays unknown, never sent again; the next run looks them up and finds them.
/// Every row is one order at the sandbox, and the audit chain verifies with one row per
/// call with the keyring's anchor written a group at a time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lost_answers_with_eight_in_flight_stay_unknown_are_looked_up_and_nothing_is_paid_twice() {
    let f = common::Fixture::new("bulklost").await;
    fund(&f);
    in_flight(&f, 8);
    f.running.sandbox.set_fault(
        "/v2/payout",
        paydesk_sandbox::Fault {
            latency_ms: 2,
            latency_jitter_ms: 6,
            drop_rate: 0.2,
            blank_trade_no_rate: 0.05,
            seed: 7,
            ..Default::default()
        },
    );
    let desk = f.desk().await;
    let rows = 120;
    let path = f.dir.path().join("payroll.csv");
    std::fs::write(&path, payroll(rows)).unwrap();
    let file = bulk::read(&path, &ctx()).unwrap();
    let plan = desk.money().bulk_plan(&file).unwrap();
    assert_eq!(plan.to_send as usize, rows);
    let mut seen = Vec::new();
    let results = desk
        .money()
        .bulk_payouts(&file, false, Some(&plan.digest), |done, total| {
            seen.push((done, total))
        })
        .await
        .unwrap();
    assert_eq!(
        seen.last(),
        Some(&(rows, rows)),
        "progress counts every row"
    );
    let unknown = results
        .iter()
        .filter(|r| r.status == RowStatus::Unknown)
        .count();
    let accepted = results
        .iter()
        .filter(|r| r.status == RowStatus::Accepted)
        .count();
    assert!(unknown >= 6, "lost answers: {unknown}");
    assert_eq!(accepted + unknown, rows, "{results:?}");
    // The gateway made every payout once: no lost answer was sent again.
    let counts = at_gateway(&f);
    assert_eq!(counts.len(), rows);
    assert!(counts.values().all(|&n| n == 1));

    // The answers come through again; the same file run again looks the rows up.
    f.running
        .sandbox
        .set_fault("/v2/payout", Default::default());
    let file = bulk::read(&path, &ctx()).unwrap();
    let plan = desk.money().bulk_plan(&file).unwrap();
    assert_eq!(plan.look_up as usize, unknown);
    assert_eq!(plan.to_send, 0);
    let results = desk
        .money()
        .bulk_payouts(&file, false, Some(&plan.digest), |_, _| {})
        .await
        .unwrap();
    assert!(
        results.iter().all(|r| r.status == RowStatus::Accepted),
        "{results:?}"
    );
    let counts = at_gateway(&f);
    assert_eq!(counts.len(), rows);
    assert!(counts.values().all(|&n| n == 1));
    // Every row's trade number is the gateway's.
    let trade_of: std::collections::HashMap<String, String> = f.running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .map(|o| (o.mer_order_no.clone(), o.trade_no.clone()))
            .collect()
    });
    for r in &results {
        assert_eq!(trade_of.get(&r.mer_order_no), Some(&r.trade_no));
    }
    let check = desk.journal().audit_verify().unwrap();
    assert!(check.ok, "{check:?}");
    // A call per row sent, a lookup per unknown one, and the rest.
    assert!(check.rows as usize >= rows + unknown, "{check:?}");
}

/// A run stopped in the middle (the window closed, the task aborted) with eight
/// requests in flight: what was out stays `sending`, an unknown outcome, and the same
/// file run again sends every other row once and never one of those blind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bulk_run_aborted_mid_flight_then_run_again_pays_no_row_twice() {
    let f = common::Fixture::new("bulkabort").await;
    fund(&f);
    in_flight(&f, 8);
    f.running.sandbox.set_fault(
        "/v2/payout",
        paydesk_sandbox::Fault {
            latency_ms: 20,
            latency_jitter_ms: 20,
            seed: 3,
            ..Default::default()
        },
    );
    let desk = f.desk().await;
    let rows = 120;
    let path = f.dir.path().join("payroll.csv");
    std::fs::write(&path, payroll(rows)).unwrap();
    let file = bulk::read(&path, &ctx()).unwrap();
    let plan = desk.money().bulk_plan(&file).unwrap();
    // Stopped once a tenth of the rows are at the gateway (the run's future dropped).
    let stopped = tokio::select! {
        r = desk.money().bulk_payouts(&file, false, Some(&plan.digest), |_, _| {}) => r.is_ok(),
        () = async {
            while at_gateway(&f).len() < rows / 10 {
                tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            }
        } => false,
    };
    assert!(!stopped, "the run was stopped before its end");
    let paid_then = at_gateway(&f).len();
    assert!(paid_then > 0 && paid_then < rows, "{paid_then}");
    // The keyring's anchor of the audit chain follows the log turn by turn: the log
    // verifies, and its anchor is not far behind its end.
    let check = desk.journal().audit_verify().unwrap();
    assert!(check.ok, "{check:?}");
    let anchored = check.anchored_rows.unwrap_or(0);
    assert!(
        anchored > 0 && check.rows - anchored <= 8,
        "the stopped run's rows anchored but for its last group at most: {check:?}"
    );
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;

    let file = bulk::read(&path, &ctx()).unwrap();
    let plan = desk.money().bulk_plan(&file).unwrap();
    let results = desk
        .money()
        .bulk_payouts(&file, false, Some(&plan.digest), |_, _| {})
        .await
        .unwrap();
    let counts = at_gateway(&f);
    assert!(counts.values().all(|&n| n == 1), "a row paid twice");
    // Each row is accepted (its order at the gateway) or, if it was out when the run
    // stopped, still to be found out: never sent again meanwhile.
    for r in &results {
        match r.status {
            RowStatus::Accepted => assert_eq!(counts.get(&r.mer_order_no), Some(&1)),
            RowStatus::Sending | RowStatus::Unknown => {}
            other => panic!("line {}: {other:?}", r.line),
        }
    }
    assert!(
        results
            .iter()
            .filter(|r| r.status == RowStatus::Accepted)
            .count()
            >= rows - 8,
        "{results:?}"
    );
}

/// The profile's SQLite file, opened beside the desk as another process would.
fn sqlite(f: &common::Fixture) -> rusqlite::Connection {
    rusqlite::Connection::open(f.home.database(&f.name)).unwrap()
}

/// The journal's status of each merchant order number, and the audit rows' identifiers,
/// read from the SQLite file.
fn journal_and_audit(f: &common::Fixture) -> (BTreeMap<String, String>, Vec<String>) {
    let db = sqlite(f);
    let mut q = db
        .prepare("SELECT mer_order_no, status FROM journal")
        .unwrap();
    let statuses = q
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut q = db.prepare("SELECT identifiers FROM audit_log").unwrap();
    let audit = q
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    (statuses, audit)
}

/// Eight requests out, half of their answers held back at the gateway for a second and
/// a half; then the SQLite file refuses the next rows (as a full disk does) while those
/// are still out. The run says the storage error, but only after every request already
/// at the gateway came back: each order the sandbox made has its outcome in the journal
/// and its row in the audit log, none left `sending` with its answer thrown away.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_storage_error_mid_run_still_records_every_answer_already_at_the_gateway() {
    let f = common::Fixture::new("bulkfull").await;
    fund(&f);
    in_flight(&f, 8);
    f.running.sandbox.set_fault(
        "/v2/payout",
        paydesk_sandbox::Fault {
            latency_ms: 2,
            hang_rate: 0.5,
            hang_ms: 1500,
            seed: 11,
            ..Default::default()
        },
    );
    let desk = f.desk().await;
    let rows = 16;
    let path = f.dir.path().join("payroll.csv");
    std::fs::write(&path, payroll(rows)).unwrap();
    let file = bulk::read(&path, &ctx()).unwrap();
    let plan = desk.money().bulk_plan(&file).unwrap();
    // The first eight rows go; any row after them finds the file full.
    // (The run writes its rows down `pending` first, then takes each up as `sending`.)
    let before: i64 = sqlite(&f)
        .query_row(
            "SELECT count(*) FROM journal WHERE status <> 'pending'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    sqlite(&f)
        .execute_batch(&format!(
            "CREATE TRIGGER test_disk_full BEFORE UPDATE OF status ON journal
             WHEN NEW.status = 'sending'
              AND (SELECT count(*) FROM journal WHERE status <> 'pending') >= {0}
             BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;
             CREATE TRIGGER test_disk_full_new BEFORE INSERT ON journal
             WHEN (SELECT count(*) FROM journal WHERE status <> 'pending') >= {0}
             BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;",
            before + 8
        ))
        .unwrap();
    let r = desk
        .money()
        .bulk_payouts(&file, false, Some(&plan.digest), |_, _| {})
        .await;
    assert!(r.is_err(), "the storage error is said");
    let sent = at_gateway(&f);
    assert_eq!(sent.len(), 8, "{sent:?}");
    let (statuses, audit) = journal_and_audit(&f);
    for no in sent.keys() {
        assert_eq!(
            statuses.get(no).map(String::as_str),
            Some("accepted"),
            "{no}: {statuses:?}"
        );
        assert_eq!(
            audit.iter().filter(|ids| ids.contains(no.as_str())).count(),
            1,
            "{no}'s call in the audit log"
        );
    }
    let check = desk.journal().audit_verify().unwrap();
    assert!(check.ok, "{check:?}");
}

/// A run stopped midway (its future dropped, as a killed process stops it) leaves the
/// keyring's anchor at most a turn behind the log: an attacker who then cuts the audit
/// log's last rows and rewrites its head to match is caught by `audit verify`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_rows_cut_after_a_run_stopped_midway_fail_verification() {
    let f = common::Fixture::new("bulkcut").await;
    fund(&f);
    in_flight(&f, 8);
    f.running.sandbox.set_fault(
        "/v2/payout",
        paydesk_sandbox::Fault {
            latency_ms: 20,
            latency_jitter_ms: 20,
            seed: 3,
            ..Default::default()
        },
    );
    let desk = f.desk().await;
    let rows = 120;
    let path = f.dir.path().join("payroll.csv");
    std::fs::write(&path, payroll(rows)).unwrap();
    let file = bulk::read(&path, &ctx()).unwrap();
    let plan = desk.money().bulk_plan(&file).unwrap();
    let rows_before: i64 = sqlite(&f)
        .query_row("SELECT count(*) FROM audit_log", [], |r| r.get(0))
        .unwrap();
    let stopped = tokio::select! {
        r = desk.money().bulk_payouts(&file, false, Some(&plan.digest), |_, _| {}) => r.is_ok(),
        () = async {
            while at_gateway(&f).len() < rows / 2 {
                tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            }
        } => false,
    };
    assert!(!stopped, "the run was stopped before its end");
    assert!(desk.journal().audit_verify().unwrap().ok);
    // The run's audit rows, all but its first few, cut; the head rewritten to the row now
    // last, as one who can write the file would.
    let db = sqlite(&f);
    let total: i64 = db
        .query_row("SELECT count(*) FROM audit_log", [], |r| r.get(0))
        .unwrap();
    let run_rows = total - rows_before;
    assert!(run_rows >= 40, "{run_rows}");
    let keep = rows_before + 4;
    db.execute_batch(&format!(
        "DELETE FROM audit_log WHERE id NOT IN (SELECT id FROM audit_log ORDER BY id LIMIT {keep});
         UPDATE audit_head SET last_id = (SELECT max(id) FROM audit_log),
             last_hash = (SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1),
             count = (SELECT count(*) FROM audit_log);"
    ))
    .unwrap();
    let check = desk.journal().audit_verify().unwrap();
    assert!(!check.ok, "the cut went unnoticed: {check:?}");
}

/// Two desks on the same profile run the same file at the same moment, eight requests in
/// flight and one: the claims share the rows out, so each is paid once at the sandbox, and
/// every row is accepted by one run or said to be out (never sent) by the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_desks_running_the_same_file_at_once_pay_each_row_once() {
    let f = common::Fixture::new("bulktwo").await;
    fund(&f);
    in_flight(&f, 8);
    f.running.sandbox.set_fault(
        "/v2/payout",
        paydesk_sandbox::Fault {
            latency_ms: 1,
            latency_jitter_ms: 4,
            seed: 5,
            ..Default::default()
        },
    );
    let a = f.desk().await;
    // The second one request at a time: most of its turns find their row taken.
    in_flight(&f, 1);
    let b = f.desk().await;
    let rows = 150;
    let path = f.dir.path().join("payroll.csv");
    std::fs::write(&path, payroll(rows)).unwrap();
    let file = bulk::read(&path, &ctx()).unwrap();
    let plan = a.money().bulk_plan(&file).unwrap();
    // The second desk's plan is made when its run starts (the first one's rows are in the
    // journal by then, so a confirmed plan would differ and be refused: no confirmation).
    let (ra, rb) = tokio::join!(
        a.money()
            .bulk_payouts(&file, false, Some(&plan.digest), |_, _| {}),
        b.money().bulk_payouts(&file, false, None, |_, _| {})
    );
    let (ra, rb) = (ra.unwrap(), rb.unwrap());
    assert_eq!((ra.len(), rb.len()), (rows, rows), "a result for every row");
    let counts = at_gateway(&f);
    assert_eq!(counts.len(), rows);
    assert!(counts.values().all(|&n| n == 1), "a row paid twice");
    for (x, y) in ra.iter().zip(&rb) {
        assert_eq!(x.line, y.line);
        assert!(
            x.status == RowStatus::Accepted || y.status == RowStatus::Accepted,
            "{x:?} {y:?}"
        );
        for r in [x, y] {
            assert!(
                matches!(
                    r.status,
                    RowStatus::Accepted | RowStatus::Sending | RowStatus::Unknown
                ),
                "{r:?}"
            );
        }
    }
}

#[test]
fn a_runs_result_file_never_replaces_an_earlier_one() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("july.csv");
    let first = bulk::fresh_result_path(&input);
    assert_eq!(first, dir.path().join("july.result.csv"));
    std::fs::write(&first, "earlier results").unwrap();
    let second = bulk::fresh_result_path(&input);
    assert_eq!(second, dir.path().join("july-2.result.csv"));
    std::fs::write(&second, "x").unwrap();
    assert_eq!(
        bulk::fresh_result_path(&input),
        dir.path().join("july-3.result.csv")
    );
    assert_eq!(std::fs::read_to_string(&first).unwrap(), "earlier results");
}

#[test]
fn the_template_is_a_file_the_bulk_run_reads_with_no_row_to_send() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("template.csv");
    bulk::write_template(&path, paydesk_core::output::Existing::Refuse).unwrap();
    let file = bulk::read(&path, &ctx()).unwrap();
    assert_eq!((file.rows.len(), file.errors.len()), (0, 0));
    for column in [
        "type",
        "amount",
        "currency",
        "account",
        "firstName",
        "lastName",
    ] {
        assert!(file.headers.iter().any(|h| h == column), "{column}");
    }
    // Never over a file already there without saying so.
    assert!(bulk::write_template(&path, paydesk_core::output::Existing::Refuse).is_err());
}

#[test]
fn a_bad_row_is_fixed_in_place_and_no_other_row_changes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("payroll.csv");
    let text = format!(
        "\u{feff}{HEADER}clabe,101.00,MXN,002010077777777771,Ana,Lima,,\n\
         clabe,1O2.00,MXN,002010077777777771,\"Souza, Bruno\",,,\n\
         card,13.50,USD,4111111111111111,Carla,Mendes,MX,\n"
    );
    std::fs::write(&path, &text).unwrap();
    let before = bulk::read(&path, &ctx()).unwrap();
    assert_eq!(before.errors.len(), 1);
    let e = &before.errors[0];
    assert_eq!(
        (e.line, e.field.as_str(), e.value.as_deref()),
        (3, "amount", Some("1O2.00"))
    );

    bulk::fix_cell(&path, e.line, &e.field, "102.00").unwrap();
    let after = bulk::read(&path, &ctx()).unwrap();
    assert!(after.errors.is_empty(), "{:?}", after.errors);
    assert_eq!(after.rows.len(), 3);
    // Every record as it was but the one cell; the byte-order mark kept.
    let fixed = std::fs::read_to_string(&path).unwrap();
    assert!(fixed.starts_with('\u{feff}'));
    let records = |f: &bulk::BulkFile| f.records.clone();
    let mut expected = records(&before);
    expected[1].1[1] = "102.00".into();
    assert_eq!(records(&after), expected);

    // A line or a column the file does not have is said so, and nothing is written.
    assert!(bulk::fix_cell(&path, 9, "amount", "1").is_err());
    assert!(bulk::fix_cell(&path, 3, "iban", "1").is_err());
    assert!(bulk::fix_cell(&path, 3, "amount", "1\n2").is_err());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), fixed);
}
