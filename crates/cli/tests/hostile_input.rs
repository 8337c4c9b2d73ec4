//! Careless or hostile input at the CLI, and a gateway that says yes without saying
//! under which number: every case ends in a clear error naming the field and the rule
//! (exit 2), or in "outcome unknown" that a lookup settles; never a panic, never a
//! value that would break later calls.

#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use paydesk_sandbox::Fault;

const CLABE: &str = "002010077777777771";

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numbers_out_of_range_and_control_characters_are_refused_naming_the_rule() {
    let (mut env, _running, _) = setup().await;
    let cases: Vec<(Vec<&str>, &str, &str)> = vec![
        (
            vec!["orders", "sync", "--days", "100000000"],
            "",
            "1..=3650",
        ),
        (
            vec!["orders", "sync", "--days", "-1"],
            "",
            "-1 is not in 1..=3650",
        ),
        (
            vec!["orders", "sync", "--days", "0"],
            "",
            "0 is not in 1..=3650",
        ),
        (vec!["orders", "sync", "--window-hours", "0"], "", "1..=744"),
        (
            vec!["orders", "list", "--limit", "-1"],
            "",
            "-1 is not in 1..=10000",
        ),
        (vec!["journal", "list", "--limit", "0"], "", "1..=10000"),
        (
            vec![
                "payout",
                "clabe",
                "--amount",
                "-1",
                "--currency",
                "MXN",
                "--clabe",
                CLABE,
            ],
            "",
            "sourceAmount: must be greater than zero",
        ),
        (
            vec!["profile", "set-token", "ext"],
            "tok-1\r\nX-Evil: 1",
            "bearerToken",
        ),
        (
            vec![
                "profile",
                "add",
                "x",
                "--base-url",
                "https://gw.example",
                "--mer-no",
                "-5",
                "--origin",
                ORIGIN,
                "--notify-url",
                NOTIFY_URL,
            ],
            "",
            "-5 is not in 1..",
        ),
        (
            vec![
                "profile",
                "add",
                "x",
                "--base-url",
                "https://gw.example",
                "--mer-no",
                "5",
                "--origin",
                ORIGIN,
                "--notify-url",
                NOTIFY_URL,
                "--lang",
                "en\r\nX-Evil: 1",
            ],
            "",
            "lang",
        ),
        (
            vec![
                "profile",
                "add",
                "x",
                "--base-url",
                "https://ana:pw@gw.example",
                "--mer-no",
                "5",
                "--origin",
                ORIGIN,
                "--notify-url",
                NOTIFY_URL,
            ],
            "",
            "baseUrl",
        ),
    ];
    for (args, stdin, said) in cases {
        let out = env.run(&args, stdin);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {:?} {}",
            out.status.code(),
            stderr(&out)
        );
        assert!(stderr(&out).contains(said), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{args:?}");
    }
    // The token that was refused did not replace the good one: calls still work.
    env.ok(&["balance", "--currency", "MXN"]);

    // A key below the size rule says the rule.
    let weak = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../gateway/tests/fixtures/rsa1024-pkcs8.pem");
    let out = env.run(
        &[
            "profile",
            "import-key",
            "ext",
            "--file",
            weak.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("1024 bits"), "{}", stderr(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_success_without_a_trade_number_is_unknown_and_a_lookup_settles_it() {
    let (mut env, running, _) = setup().await;
    let mut m = running.sandbox.with_state(|s| s.merchants[&10001].clone());
    *m.opening.entry("MXN".into()).or_default() += rust_decimal::Decimal::from(1_000);
    running.sandbox.add_merchant(m);
    running.sandbox.set_fault(
        "/v2/payout",
        Fault {
            blank_trade_no_rate: 1.0,
            ..Fault::default()
        },
    );
    let args = [
        "payout",
        "clabe",
        "--amount",
        "7.00",
        "--currency",
        "MXN",
        "--clabe",
        CLABE,
        "--mer-order-no",
        "PO-BLANK-1",
    ];
    let out = env.run(&args, "");
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains("without a usable trade number"), "{said}");
    assert!(!said.contains("outcome unknown: outcome unknown"), "{said}");
    running.sandbox.clear_faults();
    let out = env.run(
        &["journal", "reconcile", "--mer-order-no", "PO-BLANK-1"],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let real = running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .find(|o| o.mer_order_no == "PO-BLANK-1")
            .map(|o| o.trade_no.clone())
            .unwrap()
    });
    assert!(String::from_utf8_lossy(&out.stdout).contains(&real));
    let paid = running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .filter(|o| o.mer_order_no == "PO-BLANK-1")
            .count()
    });
    assert_eq!(paid, 1, "looked up, never sent again");
}
