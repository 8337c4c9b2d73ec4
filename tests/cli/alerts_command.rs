//! `paydesk alerts` (issue 35 item 4): the app's inbox for scripts and monitoring, with
//! its exit code (0 none, 1 alerts), --json, --unread, read and dismiss, and the
//! thresholds set from the command line. Against a sandbox on loopback, the real
//! keyring and the profile's files.

#![allow(clippy::unwrap_used)]

use crate::common;

use common::setup;
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alerts_lists_what_the_inbox_shows_and_exits_1_while_there_are_any() {
    let (mut env, _running, _key) = setup().await;
    let bal: Value =
        serde_json::from_str(&env.ok(&["--json", "balance", "--currency", "MXN"])).unwrap();
    let balance: rust_decimal::Decimal = bal[0]["balance"]
        .as_str()
        .or_else(|| bal[0]["snapshot"]["balance"].as_str())
        .unwrap_or_else(|| panic!("{bal}"))
        .parse()
        .unwrap();

    // Nothing yet: exit 0.
    let none = env.run(&["alerts"], "");
    assert_eq!(none.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&none.stdout).contains("no alerts"));

    // A threshold above the balance the gateway gave.
    let threshold = balance + rust_decimal::Decimal::ONE_HUNDRED;
    env.ok(&[
        "alerts",
        "settings",
        "--low-balance",
        &format!("MXN={threshold}"),
        "--quiet-hours",
        "22:00-07:00",
    ]);
    let shown: Value = serde_json::from_str(&env.ok(&["--json", "alerts", "settings"])).unwrap();
    assert_eq!(shown["lowBalance"]["MXN"], threshold.to_string());
    assert_eq!(shown["quietHours"]["from"], "22:00");

    let text = env.run(&["alerts"], "");
    assert_eq!(text.status.code(), Some(1), "alerts exit 1");
    let out = String::from_utf8_lossy(&text.stdout);
    assert!(out.contains("balance_low") && out.contains("MXN"), "{out}");
    assert!(out.contains(&threshold.to_string()), "{out}");
    assert!(String::from_utf8_lossy(&text.stderr).contains("1 alert"));

    let json = env.run(&["--json", "alerts"], "");
    assert_eq!(json.status.code(), Some(1));
    let list: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list[0]["kind"], "balance_low");
    assert_eq!(list[0]["target"]["to"], "balances");
    assert_eq!(list[0]["params"]["balance"], balance.to_string());
    let key = list[0]["key"].as_str().unwrap().to_string();

    // Read: still listed, not by --unread (exit 0 for a script that counts unread).
    env.ok(&["alerts", "read", &key]);
    assert_eq!(env.run(&["alerts", "--unread"], "").status.code(), Some(0));
    assert_eq!(env.run(&["alerts"], "").status.code(), Some(1));
    // Dismissed: gone.
    env.ok(&["alerts", "dismiss", &key]);
    assert_eq!(env.run(&["alerts"], "").status.code(), Some(0));
    // An unknown key and a bad threshold are refused (exit 2), naming them.
    let bad = env.run(&["alerts", "read", "nope:1"], "");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("nope:1"));
    let bad = env.run(&["alerts", "settings", "--low-balance", "MXN=lots"], "");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("lowBalance.MXN"));
}
