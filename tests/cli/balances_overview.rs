//! CLI parity with the app's Balances screen (issue 32): the CLI keeps a balance
//! snapshot after money moves and after a sync (the same API the app calls), shows the
//! history of a currency, and the manager's overview with totals converted at the
//! user's rates, against the sandbox. Expectations are the sandbox's own balances and
//! sums this test computes.

#![allow(clippy::unwrap_used)]

use std::str::FromStr;

use rust_decimal::Decimal;
use serde_json::Value;

use crate::common;
use common::*;

fn json(env: &mut Env, args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    serde_json::from_str(&env.ok(&all)).unwrap()
}

fn dec(v: &Value) -> Decimal {
    Decimal::from_str(v.as_str().unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn balances_follow_moves_and_syncs_and_the_overview_adds_them_up() {
    let (mut env, running, _key) = setup().await;
    common::team::fund(&running);
    let available = |c: &str| {
        running
            .sandbox
            .with_state(|s| s.balance(10001, c).available)
    };

    // Nothing kept yet.
    let history = json(&mut env, &["balance", "history", "--currency", "mxn"]);
    assert_eq!(history, Value::Array(Vec::new()));

    // A payout: the CLI keeps the balance it left, before the command ends.
    let before = available("MXN");
    let paid = json(
        &mut env,
        &[
            "payout",
            "clabe",
            "--amount",
            "12.34",
            "--currency",
            "MXN",
            "--clabe",
            "002010077777777771",
        ],
    );
    assert_eq!(paid["entry"]["status"], "accepted");
    let after = available("MXN");
    assert!(
        after < before,
        "the sandbox took the payout: {before} -> {after}"
    );
    let history = json(&mut env, &["balance", "history", "--currency", "MXN"]);
    let kept = history.as_array().unwrap();
    // The balance check before sending may keep the balance it read; the last one kept is
    // the balance the payout left.
    let last = kept.last().expect("a snapshot after the payout");
    assert_eq!(last["currency"], "MXN");
    assert_eq!(
        dec(&last["balance"]),
        after,
        "the balance the payout left: {history}"
    );
    let after_payout = kept.len();

    // A sync: the balances the synced orders moved are kept with it.
    env.ok(&["orders", "sync", "--days", "1"]);
    let history = json(&mut env, &["balance", "history", "--currency", "MXN"]);
    let kept = history.as_array().unwrap();
    assert_eq!(
        kept.len(),
        after_payout + 1,
        "another snapshot after the sync: {history}"
    );
    let (prev, last) = (&kept[after_payout - 1], &kept[after_payout]);
    assert!(last["takenAt"].as_i64() >= prev["takenAt"].as_i64());
    assert_eq!(dec(&last["balance"]), available("MXN"));

    // The overview: every profile's last snapshots, the totals, converted at the rates
    // given (USD at 17.05 MXN; a currency without a rate is left out and named).
    let o = json(
        &mut env,
        &["overview", "--to", "mxn", "--rate", "USD=17.05"],
    );
    let profiles = o["profiles"].as_array().unwrap();
    let ext = profiles.iter().find(|p| p["profile"] == "ext").unwrap();
    assert_eq!(ext["unknownOutcomes"], 0);
    assert!(ext["lastSync"].as_i64().is_some());
    let mut expected = Decimal::ZERO;
    let mut missing = Vec::new();
    for b in ext["balances"].as_array().unwrap() {
        let c = b["currency"].as_str().unwrap().to_string();
        // Each profile's figure is its last snapshot of the currency.
        let h = json(&mut env, &["balance", "history", "--currency", &c]);
        let last = h.as_array().unwrap().last().unwrap().clone();
        assert_eq!(b["balance"], last["balance"], "{c}");
        let total = dec(&last["totalBalance"]);
        let t = o["totals"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["currency"] == c.as_str())
            .unwrap();
        assert_eq!(dec(&t["totalBalance"]), total, "one profile: its own total");
        match c.as_str() {
            "MXN" => expected += total,
            "USD" => expected += total * Decimal::from_str("17.05").unwrap(),
            _ => missing.push(c),
        }
    }
    assert!(
        ext["balances"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["currency"] == "MXN"),
        "{o}"
    );
    let converted = &o["converted"];
    assert_eq!(converted["currency"], "MXN");
    assert_eq!(dec(&converted["totalBalance"]), expected);
    let mut said: Vec<String> = converted["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    said.sort();
    missing.sort();
    assert_eq!(said, missing);

    // The text says the same for a person; a bad rate names its flag.
    let text = env.ok(&["overview"]);
    assert!(
        text.contains("ext (merchant 10001)") && text.contains("totals:"),
        "{text}"
    );
    let bad = env.run(&["overview", "--to", "MXN", "--rate", "USD"], "");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--rate"));
    let upcoming = json(&mut env, &["balance", "upcoming", "--currency", "MXN"]);
    assert!(upcoming.is_array());
}
