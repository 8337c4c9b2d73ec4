//! The built-in sandbox's control from the terminal (issue 32, parity with the app):
//! demo orders added to it (`orders seed`, the app's Settings → Built-in sandbox) come in
//! with the next full sync, and an order moved by a simulation action (`orders simulate`,
//! the app's order page) is read again into the cache; a saved view of the app's Orders
//! screen lists its orders (`orders list --view`); bad input names its field.

#![allow(clippy::unwrap_used)]

use serde_json::Value;

use crate::common;
use common::Env;

fn json(env: &mut Env, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    serde_json::from_str(&env.ok(&all)).unwrap()
}

fn total(env: &mut Env, states: &str) -> u64 {
    let mut args = vec!["orders", "list", "--limit", "1"];
    if !states.is_empty() {
        args.extend(["--state", states]);
    }
    json(env, &args)["total"].as_u64().unwrap()
}

#[test]
fn demo_orders_are_added_and_an_order_is_moved_in_the_built_in_sandbox() {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut env = Env {
        home: tempfile::tempdir().unwrap(),
        service: format!(
            "PayDesk-cli-sbx-{}-{}",
            std::process::id(),
            N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ),
        outputs: Vec::new(),
    };
    // First use: the built-in sandbox, with its demo data.
    env.ok(&["orders", "sync", "--days", "100"]);
    let before = total(&mut env, "");
    assert!(before > 0);

    let refused = env.run(&["orders", "seed", "--count", "0"], "");
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("count"));
    assert_eq!(json(&mut env, &["orders", "seed", "--count", "25"]), 25);
    env.ok(&["orders", "sync", "--days", "100", "--full"]);
    assert_eq!(total(&mut env, ""), before + 25);

    // An open order (created or pending) paid at the sandbox: the cache says success.
    let open = json(
        &mut env,
        &["orders", "list", "--state", "1,2", "--limit", "1"],
    );
    let trade = open["rows"][0]["tradeNo"].as_str().unwrap().to_string();
    let bad = env.run(&["orders", "simulate", &trade, "--action", "explode"], "");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("action"));
    env.ok(&["orders", "simulate", &trade, "--action", "pay"]);
    let all = json(&mut env, &["orders", "list", "--limit", "10000"]);
    let row = all["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["tradeNo"] == trade.as_str())
        .unwrap()
        .clone();
    assert_eq!(row["state"], 5, "{row}");
    // Paid: paying it again is refused before the sandbox is asked.
    let again = env.run(&["orders", "simulate", &trade, "--action", "pay"], "");
    assert_eq!(again.status.code(), Some(2), "{again:?}");

    // A saved view of the Orders screen (the app's; saved here as the app saves one)
    // lists its orders from the terminal, by name.
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let session =
            paydesk_session::Session::new(paydesk_core::Home::at(env.home.path()), &env.service);
        let open = session.open(Some("sandbox")).await.unwrap();
        let paid = paydesk_core::store::orders::OrderFilter {
            states: vec![5],
            ..Default::default()
        };
        open.desk().orders().save_filter("Paid", &paid).unwrap();
    });
    assert_eq!(
        json(&mut env, &["orders", "views"]),
        serde_json::json!(["Paid"])
    );
    let by_view = json(
        &mut env,
        &["orders", "list", "--view", " paid ", "--limit", "1"],
    );
    assert_eq!(by_view["total"].as_u64(), Some(total(&mut env, "5")));
    assert!(by_view["total"].as_u64().unwrap() > 0);
    let missing = env.run(&["orders", "list", "--view", "unpaid"], "");
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("Paid"));
    let both = env.run(&["orders", "list", "--view", "Paid", "--state", "1"], "");
    assert_eq!(
        both.status.code(),
        Some(2),
        "a view and a filter flag together"
    );
}
