//! One payout per intent through a team, as an operator runs the `paydesk` command on
//! a real PostgreSQL server, against a sandbox that takes a reused `merOrderNo` as a
//! new order (nothing relies on the gateway refusing it):
//!
//! - a maker who runs the same `team request payout` twice without `--mer-order-no`
//!   (a re-run after "unknown", a script run twice) is refused the second time, naming
//!   the first request (the number is made from what it sends and the day); a second
//!   one on purpose under its own number, approved, is held back by the signers'
//!   journal as the same intent: one payout at the gateway;
//! - a payout whose answer is lost (the gateway commits it and drops the connection),
//!   with the profile's default grace of 300 s before an order not found may be sent
//!   again: the row stays unknown, the request is given back and taken up again, never
//!   rejected nor sent twice, and its number stays taken.

#![allow(clippy::unwrap_used)]

use crate::common;

use common::team::*;
use common::*;
use paydesk_sandbox::{Behaviour, Fault, Running};
use paydesk_testpg::TestPg;

const CLABE: &str = "002010077777777771";

/// The team of these tests: MXN payouts above 100 need one approval.
async fn team() -> (Env, Running, TestPg) {
    team_with(&[], "100").await
}

/// `paydesk team request payout` as the maker, without a number: the request's id.
fn request_payout(env: &mut Env, amount: &str) -> i64 {
    let made: serde_json::Value = serde_json::from_str(&env.ok(&[
        "--profile",
        "mk",
        "--json",
        "team",
        "request",
        "payout",
        "--amount",
        amount,
        "--currency",
        "MXN",
        "--clabe",
        CLABE,
    ]))
    .unwrap();
    assert_eq!(made["state"], "waiting", "{made}");
    made["id"].as_i64().unwrap()
}

/// One column of the team's database, as the superuser reads it.
fn sql(pg: &TestPg, q: &str) -> String {
    pg.psql_super("team", q).unwrap().trim().to_string()
}

fn row_of(pg: &TestPg, id: i64) -> (String, String, String) {
    let line = sql(
        pg,
        &format!(
            "SELECT mer_order_no || '|' || status || '|' || coalesce(message, '')
               FROM paydesk.request_rows WHERE request_id = {id}"
        ),
    );
    let mut parts = line.splitn(3, '|').map(str::to_string);
    (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap_or_default(),
    )
}

fn orders_of_amount(running: &Running, amount: &str) -> usize {
    let amount: rust_decimal::Decimal = amount.parse().unwrap();
    running
        .sandbox
        .with_state(|s| s.orders.iter().filter(|o| o.amount == amount).count())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_payout_requested_twice_is_refused_or_paid_once() {
    let (mut env, running, pg) = team().await;
    running.sandbox.set_behaviour(Behaviour {
        accept_reused_order_no: true,
        list_lag_ms: 0,
        speaks: None,
    });

    // The same command twice (run again after an "unknown", a script run twice): the
    // second is refused by the database, naming the first (its number is made from what
    // it sends and the day).
    let first = request_payout(&mut env, "1500.00");
    let again = env.run(
        &[
            "--profile",
            "mk",
            "team",
            "request",
            "payout",
            "--amount",
            "1500.00",
            "--currency",
            "MXN",
            "--clabe",
            CLABE,
        ],
        "",
    );
    assert_eq!(again.status.code(), Some(2));
    let said = String::from_utf8_lossy(&again.stderr);
    assert!(
        said.contains(&format!("request #{first} (waiting)")),
        "{said}"
    );
    // A second one on purpose, under a number of its own: the signers' journal still
    // holds it back as the same intent as the first.
    let made: serde_json::Value = serde_json::from_str(&env.ok(&[
        "--profile",
        "mk",
        "--json",
        "team",
        "request",
        "payout",
        "--amount",
        "1500.00",
        "--currency",
        "MXN",
        "--clabe",
        CLABE,
        "--mer-order-no",
        "T-ON-PURPOSE-2",
    ]))
    .unwrap();
    let second = made["id"].as_i64().unwrap();
    let (no_1, _, _) = row_of(&pg, first);
    let (no_2, _, _) = row_of(&pg, second);
    assert_ne!(no_1, no_2);
    for id in [first, second] {
        env.ok(&["--profile", "ap", "approvals", "approve", &id.to_string()]);
    }

    let out = env.ok(&["--profile", "ext", "team", "worker", "--once"]);
    assert!(
        out.contains(&format!(
            "request #{first}: 1 accepted, 0 rejected, 0 failed, 0 unknown"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "request #{second}: 0 accepted, 0 rejected, 1 failed, 0 unknown"
        )),
        "{out}"
    );
    let (_, status, _) = row_of(&pg, first);
    assert_eq!(status, "accepted");
    let (_, status, message) = row_of(&pg, second);
    assert_eq!(status, "failed");
    assert!(
        message.contains(&format!(
            "the same request is already in the journal as merOrderNo {no_1} (accepted"
        )) && message.contains("nothing was sent"),
        "{message}"
    );
    for id in [first, second] {
        let shown = env.ok(&["--profile", "ap", "approvals", "show", &id.to_string()]);
        assert!(shown.contains("done"), "{shown}");
    }
    // Exactly one payout reached the gateway, under the first number.
    assert_eq!(orders_of_amount(&running, "1500"), 1);
    assert_eq!(running.sandbox.orders_numbered(10001, &no_1), 1);
    assert_eq!(running.sandbox.orders_numbered(10001, &no_2), 0);
    // Nothing more to do, and a third run pays nothing.
    let out = env.ok(&["--profile", "ext", "team", "worker", "--once"]);
    assert!(out.contains("nothing to execute"), "{out}");
    assert_eq!(orders_of_amount(&running, "1500"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_answer_leaves_the_row_unknown_and_the_payout_sent_once() {
    let (mut env, running, pg) = team().await;
    // The gateway takes a reused number, and its order list shows a new order only
    // after ten minutes: no lookup within the 300 s grace finds the order.
    running.sandbox.set_behaviour(Behaviour {
        accept_reused_order_no: true,
        list_lag_ms: 600_000,
        speaks: None,
    });
    // The payout is committed, and its answer lost.
    running.sandbox.set_fault(
        "/v2/payout",
        Fault {
            drop_rate: 1.0,
            ..Fault::default()
        },
    );
    let id = request_payout(&mut env, "2500.00");
    env.ok(&["--profile", "ap", "approvals", "approve", &id.to_string()]);
    let (no, _, _) = row_of(&pg, id);

    let out = env.ok(&["--profile", "ext", "team", "worker", "--once"]);
    assert!(
        out.contains(&format!(
            "request #{id}: 0 accepted, 0 rejected, 0 failed, 1 unknown (taken up again later)"
        )),
        "{out}"
    );
    assert_eq!(running.sandbox.orders_numbered(10001, &no), 1);
    let given_back = |pg: &TestPg| {
        sql(
            pg,
            &format!(
                "SELECT state || ' ' || (claimed_pid IS NULL)::text || ' ' || outcome
                   FROM paydesk.requests WHERE id = {id}"
            ),
        )
    };
    assert_eq!(
        given_back(&pg),
        "executing true 0 accepted, 0 rejected, 0 failed, 1 unknown"
    );
    let (_, status, _) = row_of(&pg, id);
    assert_eq!(status, "unknown");

    // The gateway answers again. The request is taken up as soon as its retry time is
    // over (brought forward here rather than waited for): the order is still not listed
    // and the grace is not over, so it is looked up, not sent again.
    running.sandbox.set_fault("/v2/payout", Fault::default());
    sql(
        &pg,
        &format!(
            "UPDATE paydesk.requests SET claimed_at = now() - interval '1 minute' WHERE id = {id}"
        ),
    );
    let out = env.ok(&["--profile", "ext", "team", "worker", "--once"]);
    assert!(
        out.contains(&format!(
            "request #{id}: 0 accepted, 0 rejected, 0 failed, 1 unknown"
        )),
        "{out}"
    );
    assert_eq!(
        given_back(&pg),
        "executing true 0 accepted, 0 rejected, 0 failed, 1 unknown"
    );
    let (_, status, _) = row_of(&pg, id);
    assert_eq!(status, "unknown");
    assert_eq!(
        sql(
            &pg,
            &format!(
                "SELECT status || ' ' || attempts FROM paydesk.journal WHERE mer_order_no = '{no}'"
            )
        ),
        "unknown 1"
    );
    // Never rejected: no rejection, and the number stays taken.
    assert_eq!(
        sql(
            &pg,
            &format!(
                "SELECT count(*) FROM paydesk.decisions WHERE request_id = {id} AND decision = 'reject'"
            )
        ),
        "0"
    );
    let out = env.run(
        &[
            "--profile",
            "mk",
            "team",
            "request",
            "payout",
            "--amount",
            "2500.00",
            "--currency",
            "MXN",
            "--clabe",
            CLABE,
            "--mer-order-no",
            &no,
        ],
        "",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "merOrderNo {no} is already in request #{id} (executing)"
        )),
        "{stderr}"
    );
    // Once at the gateway, whatever was run.
    assert_eq!(running.sandbox.orders_numbered(10001, &no), 1);
    assert_eq!(orders_of_amount(&running, "2500"), 1);
}

/// Issue 30: a card payout through the team. The maker gives the card number on stdin;
/// it is sealed to the signers (the merchant's public key the signer's desk published
/// when it connected), so the team's database never holds it readable; once approved,
/// the signer's worker opens it and pays once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_payout_is_requested_sealed_and_paid_once() {
    let (mut env, running, pg) = team().await;
    // The signer's desk connects (and publishes the key requests are sealed to).
    let out = env.ok(&["--profile", "ext", "team", "worker", "--once"]);
    assert!(out.contains("nothing to execute"), "{out}");
    // Nothing is sealed before the maker trusts the key (its fingerprint said).
    let refused = request_card_payout(&mut env);
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("no seal key is trusted"), "{said}");
    // Not without the fingerprint the member was given: whatever key the database
    // holds is not trusted blindly.
    let blind = env.run(&["--profile", "mk", "team", "trust-seal-key"], "");
    assert!(!blind.status.success());
    let said = String::from_utf8_lossy(&blind.stderr);
    assert!(said.contains("--fingerprint"), "{said}");
    // The fingerprint as the signer reads it off the key it published (SHA-256 of the
    // key's DER), computed here by the database, not by the desk.
    let fingerprint = sql(
        &pg,
        "SELECT encode(sha256(decode(spki, 'base64')), 'hex') FROM paydesk.seal_key",
    );
    assert_eq!(fingerprint.len(), 64, "{fingerprint}");
    let trusted = env.ok(&[
        "--profile",
        "mk",
        "team",
        "trust-seal-key",
        "--fingerprint",
        &fingerprint,
    ]);
    assert!(trusted.contains("SHA-256 fingerprint"), "{trusted}");
    assert!(trusted.contains(&fingerprint), "{trusted}");
    let made = request_card_payout(&mut env);
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let made: serde_json::Value = serde_json::from_slice(&made.stdout).unwrap();
    assert_eq!(made["state"], "waiting", "{made}");
    let id = made["id"].as_i64().unwrap();
    for table in ["request_rows", "requests", "audit_log", "audit_inbox"] {
        assert_eq!(
            sql(
                &pg,
                &format!(
                    "SELECT count(*) FROM paydesk.{table} t WHERE t::text LIKE '%4111111111111111%'"
                )
            ),
            "0",
            "the card number in {table}"
        );
    }
    env.ok(&["--profile", "ap", "approvals", "approve", &id.to_string()]);
    let out = env.ok(&["--profile", "ext", "team", "worker", "--once"]);
    assert!(
        out.contains(&format!(
            "request #{id}: 1 accepted, 0 rejected, 0 failed, 0 unknown"
        )),
        "{out}"
    );
    assert_eq!(orders_of_amount(&running, "30"), 1);
    let out = env.ok(&["--profile", "ext", "team", "worker", "--once"]);
    assert!(out.contains("nothing to execute"), "{out}");
    assert_eq!(orders_of_amount(&running, "30"), 1);
}

/// `team request card-payout` as the maker, the card number on stdin.
fn request_card_payout(env: &mut Env) -> std::process::Output {
    env.run(
        &[
            "--profile",
            "mk",
            "--json",
            "team",
            "request",
            "card-payout",
            "--amount",
            "30",
            "--currency",
            "USD",
            "--first-name",
            "Ana",
            "--last-name",
            "Lima",
            "--country",
            "US",
            "--address-line",
            "1 Main St",
            "--city",
            "Austin",
            "--state",
            "TX",
            "--post-code",
            "73301",
        ],
        "4111111111111111\n",
    )
}
