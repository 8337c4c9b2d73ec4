//! A gateway PayDesk was not built with: the sandbox switched to another gateway's
//! conventions (other state values and codes, `dateLimit` read in Asia/Shanghai, pages
//! of at most 100, top-ups not in its order list) and a proxy in front of it that
//! answers for it after the gateway committed. The profile is set up only through the
//! CLI, as the README's "Connecting a live gateway" says; each expectation is what the
//! gateway did, written from the interface and the user's view.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use common::*;
use paydesk_sandbox::{Behaviour, Fault, Running, SeedSpec};
use serde_json::json;

const CLABE: &str = "002010077777777771";

/// The other gateway's conventions, as its support would describe them: written here by
/// hand, not taken from PayDesk's code.
fn other_conventions() -> serde_json::Value {
    json!({
        "format": 1,
        "name": "other gateway",
        "states": {
            "orderState": {"0": "created", "1": "processing", "2": "success", "3": "failed",
                           "4": "closed", "5": "refunded", "6": "partly_refunded",
                           "7": "charged_back"},
            "payCode": {"10": "success", "11": "failed", "12": "processing"},
            "queryStatus": {"OK": "success", "WAIT": "processing", "BAD": "failed",
                            "SHUT": "closed", "BACK": "refunded"}
        },
        "successCodes": ["0"],
        "duplicateCodes": ["DUP"],
        "notFoundCodes": ["NONE"],
        "timeZone": "Asia/Shanghai",
        "maxPageSize": 100,
        "maxSpanHours": 6,
        "queryTypes": {"sales": "SALE", "refund": "REFUND", "chargeback": "CB"},
        "v1QuerySignField": "sing",
        "listShows": {"payins": true, "payouts": true, "topUps": false, "withdrawals": true}
    })
}

/// The sandbox's own order state (1 created ... 8 charged back) as the other gateway
/// writes it in its list.
fn other_state(own: i64) -> i64 {
    match own {
        1 => 0,
        2 => 1,
        5 => 2,
        3 => 3,
        4 => 4,
        6 => 5,
        7 => 6,
        8 => 7,
        other => panic!("unexpected sandbox state {other}"),
    }
}

fn fund(running: &Running) {
    let mut m = running.sandbox.with_state(|s| s.merchants[&10001].clone());
    for cur in ["MXN", "USD"] {
        *m.opening.entry(cur.into()).or_default() += rust_decimal::Decimal::from(10_000_000);
    }
    running.sandbox.add_merchant(m);
}

fn count_numbered(running: &Running, number: &str) -> usize {
    running.sandbox.orders_numbered(10001, number)
}

/// A payout answered by a proxy after the gateway committed it, and the operator's
/// ordinary next step, the same command again: never a second payout.
async fn proxy_after_commit_pays_once(env: &mut Env, running: &Running, tag: &str) {
    let cases = [
        (400, "html"),
        (404, "envelope"),
        (400, "empty"),
        (504, "html"),
    ];
    for (i, (status, body)) in cases.into_iter().enumerate() {
        let number = format!("{tag}-PX-{i}");
        running.sandbox.set_fault(
            "/v2/payout",
            Fault {
                proxy_rate: 1.0,
                proxy_status: status,
                proxy_body: serde_json::from_value(json!(body)).unwrap(),
                ..Fault::default()
            },
        );
        let amount = format!("{}.00", 200 + i);
        let args = [
            "payout",
            "clabe",
            "--amount",
            &amount,
            "--currency",
            "MXN",
            "--clabe",
            CLABE,
            "--mer-order-no",
            &number,
        ];
        let out = env.run(&args, "");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(
            out.status.code(),
            Some(3),
            "HTTP {status} ({body}) after commit is an unknown outcome, never a refusal: {stderr}"
        );
        assert!(stderr.contains(&format!("HTTP {status}")), "{stderr}");
        assert_eq!(count_numbered(running, &number), 1, "the gateway has it");
        running.sandbox.clear_faults();
        // The same command again: looked up, found, recorded accepted; nothing sent.
        let out = env.run(&args, "");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            count_numbered(running, &number),
            1,
            "HTTP {status} ({body}): the re-run paid a second time"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_answer_after_commit_is_unknown_and_the_rerun_pays_once() {
    let (mut env, running, _) = setup().await;
    fund(&running);
    // A gateway that would take the reused number as a second payout: only the desk
    // can keep it from paying twice.
    running.sandbox.set_behaviour(Behaviour {
        accept_reused_order_no: true,
        ..Behaviour::default()
    });
    proxy_after_commit_pays_once(&mut env, &running, "STD").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_with_other_conventions_is_read_right_once_the_profile_says_them() {
    let (mut env, running, _) =
        setup_with(&["--not-found-grace-secs", "1", "--not-found-lookups", "1"]).await;
    fund(&running);
    let conventions = other_conventions();
    running.sandbox.set_behaviour(Behaviour {
        accept_reused_order_no: true,
        speaks: Some(paydesk_gateway::Conventions::from_json(&conventions.to_string()).unwrap()),
        ..Behaviour::default()
    });
    // Orders over the last three days up to this second: the newest hours are where a
    // desk sending UTC wall-clock times to a UTC+8 gateway goes blind.
    let now = chrono::Utc::now();
    let added = running.sandbox.seed(&SeedSpec {
        from: Some(
            (now - chrono::Duration::days(3))
                .format("%Y-%m-%d %H:%M:%S")
                .to_string(),
        ),
        to: Some(now.format("%Y-%m-%d %H:%M:%S").to_string()),
        seed: 29,
        ..SeedSpec::new(700)
    });
    assert_eq!(added, 700);

    // Set up as the README says: the conventions file imported, then checked.
    let file = env.home.path().join("other.json");
    std::fs::write(&file, conventions.to_string()).unwrap();
    env.ok(&[
        "profile",
        "conventions",
        "import",
        file.to_str().unwrap(),
        "--of",
        "ext",
    ]);
    // `profile add --replace` (another setting changed) keeps them.
    let base = running.base_url().to_string();
    env.ok(&[
        "profile",
        "add",
        "ext",
        "--replace",
        "--base-url",
        &base,
        "--mer-no",
        "10001",
        "--origin",
        ORIGIN,
        "--notify-url",
        NOTIFY_URL,
        "--operator",
        "ana",
        "--not-found-grace-secs",
        "1",
        "--not-found-lookups",
        "1",
    ]);
    let shown: serde_json::Value =
        serde_json::from_str(&env.ok(&["profile", "conventions", "show", "--json"])).unwrap();
    assert_eq!(shown["timeZone"], "Asia/Shanghai");
    assert_eq!(shown["maxPageSize"], 100);
    let check = env.ok(&["profile", "check"]);
    assert!(check.contains("everything tried works"), "{check}");

    // The sync gets every order the list holds, each in the state the gateway gave.
    env.ok(&["orders", "sync", "--days", "4"]);
    let expected: BTreeMap<String, i64> = running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .filter(|o| o.kind != paydesk_sandbox::model::Kind::TopUp)
            .map(|o| (o.trade_no.clone(), other_state(o.state)))
            .collect()
    });
    let cached: BTreeMap<String, i64> = {
        let conn = rusqlite::Connection::open(env.db()).unwrap();
        let mut st = conn.prepare("SELECT trade_no, state FROM orders").unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let missing: BTreeSet<_> = expected
        .keys()
        .filter(|k| !cached.contains_key(*k))
        .collect();
    assert!(missing.is_empty(), "{} orders never synced", missing.len());
    assert_eq!(
        cached, expected,
        "every order cached in the state the gateway gave"
    );

    // Queries in that gateway's words: its queryType names, its V1 `sing`.
    let refunded = running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .find(|o| !o.refunds.is_empty())
            .map(|o| o.trade_no.clone())
            .unwrap()
    });
    let shown = env.ok(&["orders", "show", &refunded]);
    assert!(
        shown.contains("verified with the gateway's key"),
        "a live answer came: {shown}"
    );
    env.ok(&["refund", "show", "--trade-no", &refunded]);
    // Its "no such order" code is said as such, not as a refusal.
    let out = env.run(&["refund", "show", "--trade-no", "T-NO-SUCH-ORDER"], "");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr.contains("the gateway has no such order (NONE"),
        "{stderr}"
    );

    // Money: a proxy after commit never pays twice in these conventions either.
    proxy_after_commit_pays_once(&mut env, &running, "OTH").await;

    // A top-up whose answer is lost: this gateway's list never shows top-ups, so not
    // finding it proves nothing. Re-run after the grace: never sent a second time.
    running.sandbox.set_fault(
        "/v2/card/topUp",
        Fault {
            drop_rate: 1.0,
            ..Fault::default()
        },
    );
    let topup = [
        "card",
        "topup",
        "--card",
        "CARD-1",
        "--amount",
        "5.00",
        "--currency",
        "USD",
        "--mer-order-no",
        "TU-OTH-1",
    ];
    let out = env.run(&topup, "");
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    running.sandbox.clear_faults();
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    for _ in 0..2 {
        let out = env.run(&topup, "");
        assert_ne!(out.status.code(), Some(0), "an unproven top-up is not done");
        tokio::time::sleep(Duration::from_millis(1_100)).await;
    }
    let out = env.run(&["journal", "reconcile", "--mer-order-no", "TU-OTH-1"], "");
    assert_eq!(
        out.status.code(),
        Some(3),
        "still unknown: nothing proves it"
    );
    assert_eq!(
        count_numbered(&running, "TU-OTH-1"),
        1,
        "the unknown top-up was sent again"
    );
    let journal = env.ok(&["journal", "list", "--json"]);
    let entries: serde_json::Value = serde_json::from_str(&journal).unwrap();
    let entry = entries
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["merOrderNo"] == "TU-OTH-1")
        .unwrap();
    assert_eq!(entry["status"], "unknown", "{entry}");
    assert_eq!(
        entry["canBeLookedUp"], false,
        "the screens offer a person's resolution, not a look-up: {entry}"
    );
    assert!(
        entry["message"]
            .as_str()
            .unwrap_or_default()
            .contains("does not show"),
        "the journal says why: {entry}"
    );
    // A person who checked with the gateway resolves it; it is done, and never sent.
    let id = entry["id"].as_i64().unwrap().to_string();
    env.ok(&[
        "journal",
        "resolve",
        &id,
        "--done",
        "--reason",
        "the gateway's support confirmed TU-OTH-1 went through",
    ]);
    let out = env.run(&topup, "");
    assert_eq!(
        out.status.code(),
        Some(0),
        "done: the same command replays it"
    );
    assert_eq!(count_numbered(&running, "TU-OTH-1"), 1);
}

/// A new merchant's first steps against that gateway before the profile says its
/// conventions: the check and the sync say which setting to change, in words; a wrong
/// gateway key is named as such.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_check_and_the_sync_name_the_setting_to_change() {
    let (mut env, running, _) = setup().await;
    running.sandbox.set_behaviour(Behaviour {
        speaks: Some(
            paydesk_gateway::Conventions::from_json(&other_conventions().to_string()).unwrap(),
        ),
        ..Behaviour::default()
    });
    // Pages of 500 (the profile's default) are refused by a gateway that takes 100.
    let out = env.run(&["profile", "check"], "");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("conventions.maxPageSize"),
        "the check names the setting: {text}"
    );
    let out = env.run(&["orders", "sync", "--days", "1"], "");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_ne!(out.status.code(), Some(0));
    assert!(
        stderr.contains("maxPageSize"),
        "the sync names it: {stderr}"
    );

    // Said, and checked again: the page size works, success code "0" understood.
    let file = env.home.path().join("other.json");
    std::fs::write(&file, other_conventions().to_string()).unwrap();
    env.ok(&["profile", "conventions", "import", file.to_str().unwrap()]);
    let text = env.ok(&["profile", "check"]);
    assert!(text.contains("everything tried works"), "{text}");

    // Another gateway key than the gateway's: named.
    let other = paydesk_gateway::PrivateKey::generate(2048).unwrap();
    let pem = env.home.path().join("wrong.pem");
    std::fs::write(&pem, other.public_key().to_pem()).unwrap();
    env.ok(&[
        "profile",
        "set-gateway-key",
        "--file",
        pem.to_str().unwrap(),
    ]);
    let out = env.run(&["profile", "check"], "");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("[setting: gatewayKey]"), "{text}");

    // A member that is no convention is refused naming it, and nothing changes.
    let out = env.run(
        &["profile", "conventions", "set", "timeZone", "Mars/Base"],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("conventions.timeZone"));
    let shown = env.ok(&["profile", "conventions", "show", "--json"]);
    assert!(shown.contains("Asia/Shanghai"), "{shown}");
}
