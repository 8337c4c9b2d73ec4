//! `paydesk payout limits` and the checks `paydesk payout` and `paydesk payout bulk` make
//! before anything leaves (issue 35): over a limit or short of the balance, refused
//! naming it, nothing journaled; a bulk check holds the rows beyond the balance.

#![allow(clippy::unwrap_used)]

use crate::common;

use rusqlite::Connection;

fn journaled(env: &common::Env, no: &str) -> i64 {
    Connection::open(env.db())
        .unwrap()
        .query_row(
            "SELECT COUNT(*) FROM journal WHERE mer_order_no = ?1",
            [no],
            |r| r.get(0),
        )
        .unwrap()
}

fn clabe<'a>(no: &'a str, amount: &'a str) -> Vec<&'a str> {
    vec![
        "payout",
        "clabe",
        "--amount",
        amount,
        "--currency",
        "MXN",
        "--clabe",
        "002010077777777771",
        "--mer-order-no",
        no,
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_and_the_balance_refuse_a_payout_and_hold_bulk_rows_before_anything_is_sent() {
    let (mut env, running, _key) = common::setup().await;
    // The merchant's MXN balance: 500.00.
    let mut m = running.sandbox.with_state(|s| s.merchants[&10001].clone());
    m.opening.insert("MXN".into(), "500.00".parse().unwrap());
    // The sandbox's fixed fee per payout: what the desk learns from the payout it caches.
    let fee: rust_decimal::Decimal = m.payout_fee;
    running.sandbox.add_merchant(m);

    let shown = env.ok(&[
        "payout",
        "limits",
        "--currency",
        "mxn",
        "--per-payout",
        "400",
    ]);
    assert!(
        shown.contains("MXN per payout 400, per day none"),
        "{shown}"
    );

    // Over the limit: refused naming it.
    let over = env.run(&clabe("CLI-LIM-1", "400.01"), "");
    assert_eq!(over.status.code(), Some(2));
    let err = String::from_utf8_lossy(&over.stderr);
    assert!(err.contains("limit per payout of 400 MXN"), "{err}");
    assert_eq!(journaled(&env, "CLI-LIM-1"), 0);

    // Within the limit, short of the balance once 350 went: refused naming the balance.
    env.ok(&clabe("CLI-LIM-2", "350.00"));
    let short = env.run(&clabe("CLI-LIM-3", "200.00"), "");
    assert_eq!(short.status.code(), Some(2));
    let err = String::from_utf8_lossy(&short.stderr);
    let d = |s: &str| s.parse::<rust_decimal::Decimal>().unwrap();
    let left = d("500.00") - d("350.00") - fee;
    assert!(err.contains("available balance"), "{err}");
    assert!(err.contains(&format!("{left} MXN now")), "{err}");
    assert!(
        err.contains(&format!("{} MXN needed", d("200.00") + fee)),
        "{err}"
    );
    assert_eq!(journaled(&env, "CLI-LIM-3"), 0);

    // A bulk check: 100 and its fee fit what is left, 80 and its fee do not; the row
    // after it is held too (file order).
    assert!(d("100.00") + fee <= left && d("100.00") + d("80.00") + fee + fee > left);
    let file = env.home.path().join("pay.csv");
    std::fs::write(
        &file,
        "type,amount,currency,account,firstName,lastName,country,merOrderNo\n\
         clabe,100.00,MXN,002010077777777771,Ana,Lima,,CLI-B-1\n\
         clabe,80.00,MXN,002010077777777771,Bo,Lima,,CLI-B-2\n\
         clabe,10.00,MXN,002010077777777771,Cy,Lima,,CLI-B-3\n",
    )
    .unwrap();
    let out = env.run(
        &[
            "--json",
            "payout",
            "bulk",
            file.to_str().unwrap(),
            "--check",
        ],
        "",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let actions: Vec<(&str, &str)> = plan["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["merOrderNo"].as_str().unwrap(),
                r["action"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        actions,
        vec![
            ("CLI-B-1", "send"),
            ("CLI-B-2", "held"),
            ("CLI-B-3", "held")
        ]
    );
    assert_eq!(plan["rows"][1]["why"]["kind"], "beyondBalance");
    assert_eq!(plan["heldFirm"], 2);
    // --include-held --yes: the balance holds stand.
    env.ok(&[
        "payout",
        "bulk",
        file.to_str().unwrap(),
        "--include-held",
        "--yes",
    ]);
    for (no, n) in [("CLI-B-1", 1), ("CLI-B-2", 0), ("CLI-B-3", 0)] {
        assert_eq!(journaled(&env, no), n, "{no}");
    }
}
