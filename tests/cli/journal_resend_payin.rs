//! `paydesk journal resend` for a payin the journal knows never reached the gateway
//! (issue 33): sent again under its own number with its own method, the PIX payer's CPF
//! read from stdin (never an argument) and checked against the entry; another CPF, an
//! account given to a payin, or a second resend send nothing. Against a sandbox on
//! loopback, the real keyring and the profile's SQLite file.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::{Env, setup};
use paydesk_sandbox::{Fault, Running};
use serde_json::Value;

const MER: u64 = 10001;

/// Runs `payin` while the gateway fails, then (after the profile's 2 s grace) lets the
/// lookup prove it absent: the entry's journal id, now "not sent".
async fn not_sent(env: &mut Env, running: &Running, payin: &[&str], stdin: &str, no: &str) -> i64 {
    running.sandbox.set_fault(
        "/payment",
        Fault {
            error_rate: 1.0,
            ..Fault::default()
        },
    );
    let first = env.run(payin, stdin);
    assert!(!first.status.success(), "the failing gateway accepted {no}");
    running.sandbox.clear_faults();
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let _ = env.run(&["journal", "reconcile"], "");
    let items: Value = serde_json::from_str(&env.ok(&["--json", "journal", "attention"])).unwrap();
    let item = items
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["entry"]["merOrderNo"] == no)
        .unwrap_or_else(|| panic!("{no} does not wait for a person: {items}"))
        .clone();
    assert_eq!(item["action"], "send_again", "{item}");
    assert_eq!(item["entry"]["status"], "pending", "{item}");
    assert_eq!(running.sandbox.orders_numbered(MER, no), 0);
    item["entry"]["id"].as_i64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn journal_resend_sends_a_payin_never_sent_again_under_its_number() {
    let (mut env, running, _) = setup().await;

    // SEPA: nothing masked; `journal attention` names the command that sends it.
    let sepa = [
        "payin",
        "create",
        "--method",
        "SEPA",
        "--amount",
        "30.00",
        "--currency",
        "EUR",
        "--name",
        "Ana Lima",
        "--email",
        "ana.lima@example.com",
        "--mer-order-no",
        "CLI-RP-SEPA-1",
    ];
    let id = not_sent(&mut env, &running, &sepa, "", "CLI-RP-SEPA-1").await;
    let said = env.ok(&["journal", "attention"]);
    assert!(
        said.contains(&format!("paydesk journal resend {id}`")),
        "attention names the resend: {said}"
    );
    // A payin takes no account: refused, nothing sent.
    let out = env.run(
        &["journal", "resend", &id.to_string(), "--account", "x"],
        "",
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--account"));
    assert_eq!(running.sandbox.orders_numbered(MER, "CLI-RP-SEPA-1"), 0);

    let sent: Value =
        serde_json::from_str(&env.ok(&["--json", "journal", "resend", &id.to_string()])).unwrap();
    let entry = &sent.as_array().unwrap()[0];
    assert_eq!(entry["status"], "accepted", "{sent}");
    assert_eq!(entry["id"].as_i64(), Some(id));
    assert_eq!(entry["merOrderNo"], "CLI-RP-SEPA-1");
    assert_eq!(running.sandbox.orders_numbered(MER, "CLI-RP-SEPA-1"), 1);
    // Accepted: a second resend is refused and sends nothing.
    let again = env.run(&["journal", "resend", &id.to_string()], "");
    assert!(!again.status.success());
    assert_eq!(running.sandbox.orders_numbered(MER, "CLI-RP-SEPA-1"), 1);

    // PIX: the CPF from stdin; another payer's CPF sends nothing.
    let pix = [
        "payin",
        "create",
        "--method",
        "PIX",
        "--amount",
        "20.00",
        "--currency",
        "BRL",
        "--name",
        "Ana Lima",
        "--mer-order-no",
        "CLI-RP-PIX-1",
    ];
    let id = not_sent(&mut env, &running, &pix, "123.456.789-09\n", "CLI-RP-PIX-1").await;
    let said = env.ok(&["journal", "attention"]);
    assert!(said.contains("CPF on stdin"), "{said}");
    let wrong = env.run(&["journal", "resend", &id.to_string()], "987.654.321-00\n");
    assert!(!wrong.status.success());
    let err = String::from_utf8_lossy(&wrong.stderr);
    assert!(
        err.contains("socialSecurityNumber") && err.contains("CLI-RP-PIX-1"),
        "the refusal names the field and the order: {err}"
    );
    assert_eq!(running.sandbox.orders_numbered(MER, "CLI-RP-PIX-1"), 0);
    let out = env.run(
        &["--json", "journal", "resend", &id.to_string()],
        "123.456.789-09\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sent: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sent[0]["status"], "accepted", "{sent}");
    assert_eq!(running.sandbox.orders_numbered(MER, "CLI-RP-PIX-1"), 1);
    let left: Value = serde_json::from_str(&env.ok(&["--json", "journal", "attention"])).unwrap();
    assert_eq!(left.as_array().unwrap().len(), 0, "{left}");
}
