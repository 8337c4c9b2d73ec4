//! The traffic counters over real HTTP on loopback: the most requests in any one
//! second for a known pace, TCP connections with and without keep-alive, the reset,
//! and the simulation call's JSON.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use paydesk_gateway::wire::{MerNo, V2BalanceQuery};
use paydesk_sandbox::{Running, TRAFFIC_WINDOW};
use serde_json::{Value, json};

fn balance_query() -> V2BalanceQuery {
    V2BalanceQuery {
        mer_no: MerNo(MER),
        currency: "USD".into(),
    }
}

/// A plain client that never goes through a proxy from the environment.
fn http() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// A simulation call with no body; (status, JSON).
async fn call(http: &reqwest::Client, r: &Running, method: &str, path: &str) -> (u16, Value) {
    let url = r.base_url().join(path.trim_start_matches('/')).unwrap();
    let resp = http
        .request(method.parse().unwrap(), url)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

/// What the server's busiest second must be, read from the client's side: request `i`
/// left at `sent[i]` and its answer came back at `answered[i]`, so it arrived in
/// between. Some window holds at least `lower` of them (a run whose first left and
/// whose last was answered within a second), and none holds more than `upper` (a run
/// whose last left within a second of its first's answer).
fn window_bounds(sent: &[Instant], answered: &[Instant]) -> (u64, u64) {
    let n = sent.len();
    let mut lower = 0;
    let mut upper = 0;
    for i in 0..n {
        let fits = (i..n)
            .take_while(|&j| answered[j].duration_since(sent[i]) < TRAFFIC_WINDOW)
            .count();
        let may_fit = (i..n)
            .take_while(|&j| sent[j].saturating_duration_since(answered[i]) < TRAFFIC_WINDOW)
            .count();
        lower = lower.max(fits as u64);
        upper = upper.max(may_fit as u64);
    }
    (lower, upper)
}

#[tokio::test]
async fn requests_100_ms_apart_peak_at_10_in_a_second() {
    let r = start().await;
    let c = client(&r);
    let (mut sent, mut answered) = (Vec::new(), Vec::new());
    for i in 0..12 {
        if i > 0 {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        sent.push(Instant::now());
        c.send(&balance_query()).await.unwrap();
        answered.push(Instant::now());
    }
    let t = r.sandbox.traffic();
    assert_eq!(t.requests, 12);
    assert_eq!(t.by_path, [("/v2/balance/query".to_string(), 12)].into());
    // Each request leaves at least 100 ms after the one before was answered, so the
    // 1st and the 11th of any run arrive more than a second apart: 10 at most, by the
    // window's definition. And 10 fit whenever ten round trips and nine pauses take
    // under a second, which the client sees for itself: then `lower` is 10 and the
    // maximum exactly 10 (on a machine too busy for that, its own bounds hold).
    let (lower, upper) = window_bounds(&sent, &answered);
    eprintln!(
        "paced: max {} in a second, client's bounds {lower}..={upper}",
        t.max_per_second
    );
    assert!(upper <= 10, "{upper}");
    assert!(
        (lower..=upper).contains(&t.max_per_second),
        "max {} outside {lower}..={upper}",
        t.max_per_second
    );

    // A burst of 5 at once: all 5 in one second when they took less than one.
    r.sandbox.reset_traffic();
    let started = Instant::now();
    let query = balance_query();
    let burst = (0..5).map(|_| c.send(&query));
    for answer in futures_util::future::join_all(burst).await {
        answer.unwrap();
    }
    let t = r.sandbox.traffic();
    assert_eq!(t.requests, 5);
    if started.elapsed() < TRAFFIC_WINDOW {
        assert_eq!(t.max_per_second, 5);
    }
    assert!(t.max_per_second <= 5);
}

#[tokio::test]
async fn keep_alive_shows_as_few_connections_and_fresh_clients_as_one_each() {
    let r = start().await;
    // One client, one request at a time: the connection is kept alive and reused.
    let c = client(&r);
    for _ in 0..200 {
        c.send(&balance_query()).await.unwrap();
    }
    let t = r.sandbox.reset_traffic();
    eprintln!(
        "kept alive: {} requests on {} connections",
        t.requests, t.connections
    );
    assert_eq!(t.requests, 200);
    // One connection; a second or third only if a request left before the connection
    // the last answer came on was back in the client's pool.
    assert!(
        (1..=3).contains(&t.connections),
        "{} connections",
        t.connections
    );

    // A fresh client per request: a connection per request.
    for _ in 0..5 {
        let (status, _) = raw(&r, "/v2/balance/query", &[], json!({"merNo": MER})).await;
        assert_eq!(status, 200);
    }
    let t = r.sandbox.traffic();
    assert_eq!((t.requests, t.connections), (5, 5), "{t:?}");
}

#[tokio::test]
async fn only_posts_to_the_operations_count_and_reset_clears() {
    let r = start().await;
    let http = http();
    let c = client(&r);
    c.send(&balance_query()).await.unwrap();
    c.send(&list_by_mer_order(&["NONE-1"])).await.unwrap();
    // Not counted as requests: the simulation API, another method on an operation's
    // path, a path that is no operation.
    assert_eq!(call(&http, &r, "GET", "/__sandbox/health").await.0, 200);
    assert_eq!(call(&http, &r, "GET", "/v2/payout").await.0, 405);
    assert_eq!(call(&http, &r, "POST", "/v2/nope").await.0, 404);
    // Refused requests are requests all the same.
    let (status, v) = raw(&r, "/v2/payout", &[], json!({"merNo": 1})).await;
    assert_eq!((status, v["code"].as_str()), (200, Some("E1002")), "{v}");

    let (status, v) = call(&http, &r, "GET", "/__sandbox/traffic").await;
    assert_eq!(status, 200, "{v}");
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        ["byPath", "connections", "maxPerSecond", "requests"],
        "{v}"
    );
    assert_eq!(v["requests"], json!(3), "{v}");
    assert_eq!(
        v["byPath"],
        json!({"/v2/balance/query": 1, "/v2/order/queryOrderList": 1, "/v2/payout": 1}),
        "{v}"
    );
    let max = v["maxPerSecond"].as_u64().unwrap();
    assert!((1..=3).contains(&max), "{v}");
    // Three clients (the gateway client, the plain one, `raw`'s fresh one): a
    // connection each, or a few more if a pool missed a returning connection.
    let conns = v["connections"].as_u64().unwrap();
    assert!((3..=6).contains(&conns), "{v}");

    // DELETE answers what was counted and starts again from zero.
    let (status, cleared) = call(&http, &r, "DELETE", "/__sandbox/traffic").await;
    assert_eq!(status, 200, "{cleared}");
    for key in ["requests", "maxPerSecond", "byPath"] {
        assert_eq!(cleared["cleared"][key], v[key], "{key}: {cleared}");
    }
    let t = r.sandbox.traffic();
    assert_eq!((t.requests, t.max_per_second), (0, 0), "{t:?}");
    assert!(t.by_path.is_empty(), "{t:?}");
    // Connections opened before the reset are not counted again when reused.
    c.send(&balance_query()).await.unwrap();
    let t = r.sandbox.reset_traffic();
    assert_eq!((t.requests, t.max_per_second), (1, 1), "{t:?}");
    assert!(t.connections <= 1, "{t:?}");
    assert_eq!(r.sandbox.traffic(), paydesk_sandbox::Traffic::default());

    // Another method: 405 naming the two it takes.
    let (status, v) = call(&http, &r, "POST", "/__sandbox/traffic").await;
    assert_eq!(status, 405, "{v}");
    assert!(v["error"].as_str().unwrap().contains("GET, DELETE"), "{v}");
}
