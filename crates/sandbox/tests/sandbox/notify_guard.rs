//! The sandbox never notifies its own simulation API: a notifyUrl that reaches
//! `/__sandbox/` however it is spelt (escapes, doubled slashes, dot segments, case,
//! host aliases) is given up unsent, and a receiver's redirect is not followed (it
//! could point there).

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::*;
use paydesk_gateway::wire::V2Payment;
use paydesk_sandbox::model::{Kind, st};
use paydesk_sandbox::notify::is_simulation_api;
use serde_json::json;

/// Paths that reach (or that a lenient server could read as) the simulation API.
const TRICKS: &[&str] = &[
    "/__sandbox/reset",
    "/__sandbox/reset/",
    "/%5F%5Fsandbox/reset",
    "/%5f%5fSANDBOX/reset",
    "/%255F%255Fsandbox/reset",
    "//__sandbox/reset",
    "///__sandbox//reset",
    "/x/../__sandbox/reset",
    "/x/%2e%2e/__sandbox/reset",
    "/x/%2E%2E/__sandbox/reset",
    "/x/%252e%252e/__sandbox/reset",
    "/./__sandbox/reset",
    "/%2F__sandbox/reset",
    "/__sandbox%2freset",
    "/__Sandbox/orders/T1/pay",
    "/__sandbox;x/reset",
    "/%20__sandbox/reset",
    "/hooks/__sandbox/reset",
    "\\__sandbox\\reset",
];

fn hosts(port: u16) -> Vec<String> {
    vec![
        format!("http://127.0.0.1:{port}"),
        format!("http://LOCALHOST:{port}"),
        format!("http://localhost:{port}"),
        format!("HTTP://127.0.0.1:{port}"),
        format!("http://user:pw@127.0.0.1:{port}"),
        format!("http://127.1:{port}"),
        format!("http://2130706433:{port}"),
        format!("http://0x7f000001:{port}"),
        format!("http://[::1]:{port}"),
        format!("http://127.0.0.1.:{port}"),
        "https://shop.example".to_string(),
    ]
}

#[test]
fn every_spelling_of_the_simulation_api_is_recognised() {
    for host in hosts(8700) {
        for path in TRICKS {
            for tail in ["", "?x=1", "#frag", "?next=/v2/payment"] {
                let url = format!("{host}{path}{tail}");
                assert!(is_simulation_api(&url), "{url}");
            }
        }
    }
    for url in [
        "http://127.0.0.1:9/notify",
        "https://shop.example/n",
        "https://shop.example/sandbox/reset",
        "https://shop.example/_sandbox/reset",
        "https://shop.example/__sand/box",
        "https://shop.example/n?path=/__sandbox/reset",
        "https://shop.example/n#/__sandbox/reset",
        "https://__sandbox.example/n",
        "https://shop.example/%",
        "https://shop.example/%zz",
        "not a url",
        "",
    ] {
        assert!(!is_simulation_api(url), "{url}");
    }
}

/// Waits until every notification about `trade_no` has given up or been delivered.
async fn settled(
    r: &paydesk_sandbox::Running,
    trade_no: &str,
) -> Vec<paydesk_sandbox::Notification> {
    for _ in 0..200 {
        let notes: Vec<_> = r
            .sandbox
            .notifications()
            .into_iter()
            .filter(|n| n.trade_no == trade_no)
            .collect();
        if !notes.is_empty() && notes.iter().all(|n| n.gave_up || n.delivered) {
            return notes;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "notifications about {trade_no} never settled: {:?}",
        r.sandbox.notifications()
    );
}

#[tokio::test]
async fn a_notify_url_on_the_simulation_api_is_never_called_however_spelt() {
    let r = start().await;
    let port = r.addr.port();
    // Every trick on the sandbox's own address, and every alias of it with a few
    // (the unit test above crosses them all).
    let hosts = hosts(port);
    let mut urls: Vec<String> = TRICKS.iter().map(|p| format!("{}{p}", hosts[0])).collect();
    for host in &hosts[1..10] {
        for path in [TRICKS[0], TRICKS[2], TRICKS[7]] {
            urls.push(format!("{host}{path}"));
        }
    }
    let mut checked = 0;
    for (i, url) in urls.iter().enumerate() {
        // Seeded orders carry any http(s) notifyUrl (the gateway's own check may refuse
        // some of these at the door, which is fine but would not test the guard).
        let (status, v) = sim(
            &r,
            "/__sandbox/seed",
            json!({"count": 12, "seed": i, "notifyUrl": url}),
        )
        .await;
        assert_eq!(status, 200, "{url}: {v}");
        let target = r.sandbox.with_state(|s| {
            s.orders
                .iter()
                .filter(|o| &o.notify_url == url && o.kind == Kind::Payin)
                .find(|o| o.state == st::SUCCESS || o.state == st::PENDING)
                .map(|o| (o.trade_no.clone(), o.state))
        });
        let Some((trade_no, state)) = target else {
            continue;
        };
        let action = if state == st::PENDING {
            "pay"
        } else {
            "refund"
        };
        let (status, v) = sim(
            &r,
            &format!("/__sandbox/orders/{trade_no}/{action}"),
            json!({}),
        )
        .await;
        assert_eq!(status, 200, "{url}: {v}");
        for n in settled(&r, &trade_no).await {
            assert!(n.gave_up && !n.delivered, "{url}: {n:?}");
            assert!(
                n.attempts
                    .iter()
                    .all(|a| a.status.is_none() && a.detail.contains("simulation API")),
                "{url}: sent anyway: {n:?}"
            );
        }
        checked += 1;
    }
    assert!(
        checked >= urls.len() - 2,
        "only {checked} of {} checked",
        urls.len()
    );
    // Nothing was reset: every seeded order is still there, and the books agree.
    assert_eq!(r.sandbox.with_state(|s| s.orders.len()), urls.len() * 12);
    r.sandbox.with_state(|s| s.check_ledger()).unwrap();
}

#[tokio::test]
async fn a_receivers_redirect_to_the_simulation_api_is_not_followed() {
    let r = start().await;
    let target = format!("http://127.0.0.1:{}/__sandbox/reset", r.addr.port());
    let hits = Arc::new(AtomicUsize::new(0));
    let hits2 = hits.clone();
    let app = axum::Router::new().fallback(move || {
        let target = target.clone();
        let hits = hits2.clone();
        async move {
            hits.fetch_add(1, Ordering::SeqCst);
            (
                axum::http::StatusCode::TEMPORARY_REDIRECT,
                [("location", target)],
                "",
            )
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });

    let c = client(&r);
    let mut common = payin("REDIRECT-1", "10.00", "CNY");
    common.notify_url = format!("http://{addr}/notify");
    let trade_no = c.send(&V2Payment { common }).await.unwrap().data.trade_no;
    let (status, _) = sim(&r, &format!("/__sandbox/orders/{trade_no}/pay"), json!({})).await;
    assert_eq!(status, 200);
    let notes = settled(&r, &trade_no).await;
    assert!(notes[0].gave_up, "{notes:?}");
    assert!(
        notes[0].attempts.iter().all(|a| a.status == Some(307)),
        "{notes:?}"
    );
    assert_eq!(hits.load(Ordering::SeqCst), notes[0].attempts.len());
    assert_eq!(
        r.sandbox.with_state(|s| s.orders.len()),
        1,
        "the redirect did not reach reset"
    );
}
