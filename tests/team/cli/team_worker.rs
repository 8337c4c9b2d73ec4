//! A team through the `paydesk` command on a real PostgreSQL server: the owner sets the
//! team up, a maker requests a bulk file, an approver approves it, and a signer's
//! worker is killed with `kill -9` in the middle of the batch; a second worker takes it
//! up. On a gateway that accepts a reused order number, every row is paid exactly once.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::BTreeMap;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::team::*;
use common::*;
use paydesk_sandbox::{Behaviour, Fault, Running};
use paydesk_testpg::TestPg;

const ROWS: usize = 40;

fn orders_by_number(running: &Running) -> BTreeMap<String, usize> {
    running.sandbox.with_state(|s| {
        let mut m = BTreeMap::new();
        for o in &s.orders {
            *m.entry(o.mer_order_no.clone()).or_insert(0) += 1;
        }
        m
    })
}

fn accepted_rows(pg: &TestPg) -> usize {
    pg.psql_super(
        "team",
        "SELECT count(*) FROM paydesk.request_rows WHERE status = 'accepted'",
    )
    .unwrap()
    .trim()
    .parse()
    .unwrap()
}

fn worker(env: &Env) -> Child {
    env.cmd(&["--profile", "ext", "team", "worker", "--poll-secs", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// The maker's payroll of `ROWS` CLABE payouts from `first` MXN up, requested as one
/// batch: its request's JSON.
fn request_payroll(env: &mut Env, first: usize) -> serde_json::Value {
    let mut csv = String::from("type,amount,currency,account,firstName,lastName,country\n");
    for i in 0..ROWS {
        csv.push_str(&format!(
            "clabe,{}.00,MXN,002010077777777771,,,MX\n",
            first + i
        ));
    }
    let file = env.home.path().join("payroll.csv");
    std::fs::write(&file, &csv).unwrap();
    serde_json::from_str(&env.ok(&[
        "--profile",
        "mk",
        "--json",
        "team",
        "request",
        "bulk",
        file.to_str().unwrap(),
    ]))
    .unwrap()
}

/// Lets `worker` pay part of the batch (8 rows), then kills it with SIGKILL.
fn kill_mid_batch(pg: &TestPg, mut worker: Child) {
    let t = Instant::now();
    while accepted_rows(pg) < 8 {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the worker did not start"
        );
        assert!(worker.try_wait().unwrap().is_none(), "the worker exited");
        std::thread::sleep(Duration::from_millis(20));
    }
    worker.kill().unwrap(); // SIGKILL
    worker.wait().unwrap();
    assert!(
        accepted_rows(pg) < ROWS,
        "the batch finished before the kill"
    );
}

/// Waits for request `id` to be done while `worker` runs, then stops the worker.
fn finish_with(pg: &TestPg, id: &str, mut worker: Child) {
    let t = Instant::now();
    loop {
        let state = pg
            .psql_super(
                "team",
                &format!("SELECT state FROM paydesk.requests WHERE id = {id}"),
            )
            .unwrap();
        if state.trim() == "done" {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "the batch never finished: {state}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    worker.kill().unwrap();
    worker.wait().unwrap();
}

/// Every row of request `id` is at the gateway exactly once, and nothing else is.
fn each_row_paid_once(pg: &TestPg, running: &Running, id: &str) {
    let numbers = pg
        .psql_super(
            "team",
            &format!("SELECT mer_order_no FROM paydesk.request_rows WHERE request_id = {id}"),
        )
        .unwrap();
    let by_number = orders_by_number(running);
    let numbers: Vec<&str> = numbers.lines().collect();
    assert_eq!(numbers.len(), ROWS);
    for n in numbers {
        assert_eq!(by_number.get(n), Some(&1), "row {n} paid other than once");
    }
    assert_eq!(by_number.len(), ROWS, "orders beyond the batch's rows");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_killed_mid_batch_leaves_every_row_paid_exactly_once() {
    // The signer's profile `ext` holds the key; "not found" settles at once, so a row
    // the killed worker never sent is sent again (same number) after one lookup. MXN
    // payouts above 1000 need one approval.
    let (mut env, running, pg) = team_with(
        &["--not-found-grace-secs", "0", "--not-found-lookups", "1"],
        "1000",
    )
    .await;
    // The team's own not-found grace (the database's, schema 0038) settles at once too.
    pg.psql_owner(
        "team",
        "UPDATE paydesk.team SET not_found_grace_ms = 0 WHERE id = 1",
    )
    .unwrap();
    // A gateway that would pay a reused number twice, and slowly.
    running.sandbox.set_behaviour(Behaviour {
        accept_reused_order_no: true,
        list_lag_ms: 0,
        speaks: None,
    });
    running.sandbox.set_fault(
        "/v2/payout",
        Fault {
            latency_ms: 60,
            ..Fault::default()
        },
    );
    assert!(
        env.ok(&["--profile", "ap", "team", "whoami"])
            .contains("ann (approver)")
    );

    // The maker requests a bulk file; the maker cannot approve it.
    let made = request_payroll(&mut env, 100);
    let id = made["id"].as_i64().unwrap().to_string();
    assert_eq!(made["state"], "waiting");
    assert_eq!(made["rowCount"], ROWS);
    let own = env.run(&["--profile", "mk", "approvals", "approve", &id], "");
    assert_eq!(
        own.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&own.stderr)
    );
    let listed = env.ok(&["--profile", "ap", "approvals", "list"]);
    assert!(listed.contains(&format!("#{id}")), "{listed}");

    // The first worker waits; the approval wakes it.
    let first = worker(&env);
    std::thread::sleep(Duration::from_millis(500));
    env.ok(&["--profile", "ap", "approvals", "approve", &id]);
    kill_mid_batch(&pg, first);

    // A second worker takes the batch up at once (the first one's connection is gone).
    finish_with(&pg, &id, worker(&env));
    assert_eq!(accepted_rows(&pg), ROWS);
    each_row_paid_once(&pg, &running, &id);
    let shown = env.ok(&["--profile", "ap", "approvals", "show", &id]);
    assert!(shown.contains("done"), "{shown}");
    assert!(shown.contains("outcome: 40 accepted"), "{shown}");
}

/// A second signer on a desk of their own (their own keyring, the same merchant key)
/// takes up the batch of a signer whose worker was killed with `kill -9`: every approved
/// row is paid exactly once at the gateway, and none is recorded failed (the signers'
/// intent fingerprints are the team's, not each keyring's).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_signer_takes_over_a_dead_signers_batch_and_pays_each_row_once() {
    let (mut env, running, pg, key) = team_with_key(
        &["--not-found-grace-secs", "0", "--not-found-lookups", "1"],
        "1000",
    )
    .await;
    // The team's own not-found grace (the database's, schema 0038) settles at once too.
    pg.psql_owner(
        "team",
        "UPDATE paydesk.team SET not_found_grace_ms = 0 WHERE id = 1",
    )
    .unwrap();
    running.sandbox.set_behaviour(Behaviour {
        accept_reused_order_no: true,
        ..Behaviour::default()
    });
    running.sandbox.set_fault(
        "/v2/payout",
        Fault {
            latency_ms: 60,
            ..Fault::default()
        },
    );
    // Sue, the second signer, on another machine: her own home and keyring.
    let out = env
        .cmd(&[
            "--profile",
            "owner",
            "team",
            "user",
            "add",
            "sue",
            "--role",
            "signer",
        ])
        .env("PAYDESK_NEW_PASSWORD", PASSWORD)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut sue = Env {
        home: tempfile::tempdir().unwrap(),
        service: format!("{}-sue", env.service),
        outputs: Vec::new(),
    };
    let port = pg.port().to_string();
    let base = running.base_url().to_string();
    sue.ok(&[
        "profile",
        "add",
        "ext",
        "--base-url",
        &base,
        "--mer-no",
        "10001",
        "--origin",
        ORIGIN,
        "--notify-url",
        NOTIFY_URL,
        "--team-host",
        "127.0.0.1",
        "--team-port",
        &port,
        "--team-database",
        "team",
        "--team-user",
        "sue",
        "--not-found-grace-secs",
        "0",
        "--not-found-lookups",
        "1",
    ]);
    let dir = sue.home.path().to_path_buf();
    std::fs::write(dir.join("merchant.pem"), key.to_pkcs8_pem()).unwrap();
    std::fs::write(
        dir.join("gateway.pem"),
        running.sandbox.gateway_public_key().to_pem(),
    )
    .unwrap();
    sue.ok(&[
        "profile",
        "import-key",
        "ext",
        "--file",
        dir.join("merchant.pem").to_str().unwrap(),
    ]);
    std::fs::remove_file(dir.join("merchant.pem")).unwrap();
    sue.ok(&[
        "profile",
        "set-gateway-key",
        "ext",
        "--file",
        dir.join("gateway.pem").to_str().unwrap(),
    ]);
    assert!(
        sue.run(&["profile", "set-token", "ext"], TOKEN)
            .status
            .success()
    );
    assert!(
        sue.run(&["profile", "set-team-password", "ext"], PASSWORD)
            .status
            .success()
    );

    let made = request_payroll(&mut env, 300);
    let id = made["id"].as_i64().unwrap().to_string();
    env.ok(&["--profile", "ap", "approvals", "approve", &id]);
    // Sam's worker pays part of the batch and is killed; Sue's takes it up.
    kill_mid_batch(&pg, worker(&env));
    finish_with(&pg, &id, worker(&sue));

    let failed = pg
        .psql_super(
            "team",
            &format!("SELECT count(*) FROM paydesk.request_rows WHERE request_id = {id} AND status <> 'accepted'"),
        )
        .unwrap();
    assert_eq!(
        failed.trim(),
        "0",
        "every approved row accepted, none failed"
    );
    each_row_paid_once(&pg, &running, &id);
}
