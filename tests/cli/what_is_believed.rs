//! What the desk believes of a hostile gateway, through the real binary: an order listed
//! under our number but for another amount is a conflict, never our payout (and never a
//! reason to send again); a payin's `javascript:` link is never handed out as a link.

#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use paydesk_sandbox::{Fault, Running};

const CLABE: &str = "002010077777777771";

fn fund(running: &Running) {
    let mut m = running.sandbox.with_state(|s| s.merchants[&10001].clone());
    *m.opening.entry("MXN".into()).or_default() += rust_decimal::Decimal::from(1_000_000);
    running.sandbox.add_merchant(m);
}

fn journal_row(env: &Env, no: &str) -> (String, Option<String>, Option<String>) {
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    conn.query_row(
        "SELECT status, code, trade_no FROM journal WHERE mer_order_no = ?1",
        [no],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_under_our_number_for_another_amount_is_a_conflict_not_our_payout() {
    let (mut env, running, _) = setup().await;
    fund(&running);
    // The payout reaches the gateway; its answer is lost.
    running.sandbox.set_fault(
        "/v2/payout",
        Fault {
            drop_rate: 1.0,
            ..Fault::default()
        },
    );
    let pay = [
        "payout",
        "clabe",
        "--amount",
        "50.00",
        "--currency",
        "MXN",
        "--clabe",
        CLABE,
        "--mer-order-no",
        "PO-CONFLICT-1",
    ];
    let out = env.run(&pay, "");
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    running.sandbox.clear_faults();
    // The gateway's record under our number says 600.00, not the 50.00 we sent.
    assert!(running.sandbox.alter_order(10001, "PO-CONFLICT-1", |o| {
        o.amount = "600.00".parse().unwrap();
    }));
    let out = env.run(
        &["journal", "reconcile", "--mer-order-no", "PO-CONFLICT-1"],
        "",
    );
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(3), "still unknown: {shown}");
    assert!(
        shown.contains("conflict") && shown.contains("amount 600, not 50"),
        "the reason is shown: {shown}"
    );
    let (status, code, trade_no) = journal_row(&env, "PO-CONFLICT-1");
    assert_eq!(
        (status.as_str(), code.as_deref(), trade_no),
        ("unknown", Some("conflict"), None),
        "not recorded as accepted with the other order's trade number"
    );
    // The operator runs the same command again: the conflict stands, nothing is sent.
    let out = env.run(&pay, "");
    assert_eq!(out.status.code(), Some(3));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("conflict"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(running.sandbox.orders_numbered(10001, "PO-CONFLICT-1"), 1);
    // Another currency is a conflict too.
    assert!(running.sandbox.alter_order(10001, "PO-CONFLICT-1", |o| {
        o.amount = "50.00".parse().unwrap();
        o.currency = "USD".into();
    }));
    let out = env.run(
        &["journal", "reconcile", "--mer-order-no", "PO-CONFLICT-1"],
        "",
    );
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(shown.contains("currency \"USD\", not MXN"), "{shown}");
    // Once the gateway's record is the order sent, it is found and accepted.
    assert!(running.sandbox.alter_order(10001, "PO-CONFLICT-1", |o| {
        o.currency = "MXN".into();
    }));
    env.ok(&["journal", "reconcile", "--mer-order-no", "PO-CONFLICT-1"]);
    let (status, code, trade_no) = journal_row(&env, "PO-CONFLICT-1");
    assert_eq!(
        (status.as_str(), code.as_deref()),
        ("accepted", Some("reconciled"))
    );
    assert!(trade_no.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_pay_url_is_never_handed_out_as_a_link() {
    let (mut env, running, _) = setup().await;
    // Each payin of its own amount (the journal's duplicate guard would hold a second
    // one of the same).
    let payin = |env: &mut Env, amount: &str| -> serde_json::Value {
        let out = env.ok(&[
            "--json",
            "payin",
            "create",
            "--method",
            "WECHAT",
            "--amount",
            amount,
            "--currency",
            "USD",
        ]);
        serde_json::from_str(&out).unwrap()
    };
    for (n, hostile) in [
        "javascript:alert(document.cookie)".to_string(),
        "file:///etc/passwd".to_string(),
        format!("https://pay.example/{}", "a".repeat(1_000_000)),
    ]
    .into_iter()
    .enumerate()
    {
        running.sandbox.set_pay_url(Some(hostile));
        let r = payin(&mut env, &format!("1.0{n}"));
        assert_eq!(
            r["entry"]["status"], "accepted",
            "the order itself stands: {r}"
        );
        assert!(
            r["data"]["payUrl"].is_null(),
            "no link: {}",
            &r.to_string()[..300.min(r.to_string().len())]
        );
        let said = r["data"]["message"].as_str().unwrap_or_default();
        assert!(said.contains("payUrl"), "the receipt says why: {said}");
        assert!(said.chars().count() < 400, "and does not repeat a megabyte");
    }
    running.sandbox.set_pay_url(None);
    let r = payin(&mut env, "2.00");
    assert!(
        r["data"]["payUrl"]
            .as_str()
            .is_some_and(|u| u.starts_with("https://")),
        "{r}"
    );
}
