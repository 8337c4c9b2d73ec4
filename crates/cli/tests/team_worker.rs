//! A team through the `paydesk` command on a real PostgreSQL server: the owner sets the
//! team up, a maker requests a bulk file, an approver approves it, and a signer's
//! worker is killed with `kill -9` in the middle of the batch; a second worker takes it
//! up. On a gateway that accepts a reused order number, every row is paid exactly once.

#![allow(clippy::unwrap_used)]

mod common;

use std::collections::BTreeMap;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::*;
use paydesk_sandbox::{Behaviour, Fault, Running};
use paydesk_testpg::TestPg;

const PASSWORD: &str = "correct-horse-battery";
const ROWS: usize = 40;

fn fund(running: &Running) {
    let mut m = running.sandbox.with_state(|s| s.merchants[&10001].clone());
    *m.opening.entry("MXN".into()).or_default() += rust_decimal::Decimal::from(10_000_000);
    running.sandbox.add_merchant(m);
}

fn orders_by_number(running: &Running) -> BTreeMap<String, usize> {
    running.sandbox.with_state(|s| {
        let mut m = BTreeMap::new();
        for o in &s.orders {
            *m.entry(o.mer_order_no.clone()).or_insert(0) += 1;
        }
        m
    })
}

/// A team profile `name` for the database user `user` (password in the keyring).
fn team_profile(env: &mut Env, pg: &TestPg, base: &str, name: &str, user: &str) {
    let port = pg.port().to_string();
    env.ok(&[
        "profile",
        "add",
        name,
        "--base-url",
        base,
        "--mer-no",
        "10001",
        "--origin",
        ORIGIN,
        "--notify-url",
        NOTIFY_URL,
        "--team-host",
        pg.host(),
        "--team-port",
        &port,
        "--team-database",
        "team",
        "--team-user",
        user,
    ]);
    let out = env.run(&["profile", "set-team-password", name], PASSWORD);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_killed_mid_batch_leaves_every_row_paid_exactly_once() {
    let pg = TestPg::start().unwrap();
    pg.create_database("team").unwrap();
    let port = pg.port().to_string();
    // The signer's profile `ext` holds the key; "not found" settles at once, so a row
    // the killed worker never sent is sent again (same number) after one lookup.
    let (mut env, running, _key) = setup_with(&[
        "--team-host",
        "127.0.0.1",
        "--team-port",
        &port,
        "--team-database",
        "team",
        "--team-user",
        "sam",
        "--not-found-grace-secs",
        "0",
        "--not-found-lookups",
        "1",
    ])
    .await;
    fund(&running);
    // A gateway that would pay a reused number twice, and slowly.
    running.sandbox.set_behaviour(Behaviour {
        accept_reused_order_no: true,
        list_lag_ms: 0,
    });
    running.sandbox.set_fault(
        "/v2/payout",
        Fault {
            latency_ms: 60,
            ..Fault::default()
        },
    );
    let base = running.base_url().to_string();

    // The owner sets the team up and adds its members.
    let out = env
        .cmd(&[
            "team",
            "init",
            "--host",
            "127.0.0.1",
            "--port",
            &port,
            "--database",
            "team",
            "--user",
            pg.superuser(),
            "--mer-no",
            "10001",
        ])
        .env("PAYDESK_TEAM_PASSWORD", pg.superuser_password())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    team_profile(&mut env, &pg, &base, "owner", pg.superuser());
    let out = env.run(
        &["profile", "set-team-password", "owner"],
        pg.superuser_password(),
    );
    assert!(out.status.success());
    for (name, role) in [("mark", "maker"), ("ann", "approver"), ("sam", "signer")] {
        let out = env
            .cmd(&[
                "--profile",
                "owner",
                "team",
                "user",
                "add",
                name,
                "--role",
                role,
            ])
            .env("PAYDESK_NEW_PASSWORD", PASSWORD)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = env.run(&["profile", "set-team-password", "ext"], PASSWORD);
    assert!(out.status.success());
    env.ok(&[
        "--profile",
        "owner",
        "team",
        "rules",
        "set",
        "--currency",
        "MXN",
        "--above",
        "1000",
        "--approvals",
        "1",
    ]);
    team_profile(&mut env, &pg, &base, "mk", "mark");
    team_profile(&mut env, &pg, &base, "ap", "ann");
    assert!(
        env.ok(&["--profile", "ap", "team", "whoami"])
            .contains("ann (approver)")
    );

    // The maker requests a bulk file; the maker cannot approve it.
    let mut csv = String::from("type,amount,currency,account,firstName,lastName,country\n");
    for i in 0..ROWS {
        csv.push_str(&format!(
            "clabe,{}.00,MXN,002010077777777771,,,MX\n",
            100 + i
        ));
    }
    let file = env.home.path().join("payroll.csv");
    std::fs::write(&file, &csv).unwrap();
    let made: serde_json::Value = serde_json::from_str(&env.ok(&[
        "--profile",
        "mk",
        "--json",
        "team",
        "request",
        "bulk",
        file.to_str().unwrap(),
    ]))
    .unwrap();
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
    let mut first = worker(&env);
    std::thread::sleep(Duration::from_millis(500));
    env.ok(&["--profile", "ap", "approvals", "approve", &id]);
    let t = Instant::now();
    while accepted_rows(&pg) < 8 {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the worker did not start"
        );
        assert!(first.try_wait().unwrap().is_none(), "the worker exited");
        std::thread::sleep(Duration::from_millis(20));
    }
    first.kill().unwrap(); // SIGKILL
    first.wait().unwrap();
    let at_kill = accepted_rows(&pg);
    assert!(at_kill < ROWS, "the batch finished before the kill");

    // A second worker takes the batch up at once (the first one's connection is gone).
    let mut second = worker(&env);
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
    second.kill().unwrap();
    second.wait().unwrap();

    assert_eq!(accepted_rows(&pg), ROWS);
    let numbers = pg
        .psql_super(
            "team",
            &format!("SELECT mer_order_no FROM paydesk.request_rows WHERE request_id = {id}"),
        )
        .unwrap();
    let by_number = orders_by_number(&running);
    let numbers: Vec<&str> = numbers.lines().collect();
    assert_eq!(numbers.len(), ROWS);
    for n in numbers {
        assert_eq!(by_number.get(n), Some(&1), "row {n} paid other than once");
    }
    assert_eq!(by_number.len(), ROWS, "orders beyond the batch's rows");
    let shown = env.ok(&["--profile", "ap", "approvals", "show", &id]);
    assert!(shown.contains("done"), "{shown}");
    assert!(shown.contains("outcome: 40 accepted"), "{shown}");
}
