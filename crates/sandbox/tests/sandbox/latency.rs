//! Latency faults: a random jitter on top of the fixed latency, within its bounds and
//! reproducible from the seed, and a delay that holds one request without holding
//! the server.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use paydesk_gateway::wire::{MerNo, Operation as _, V2BalanceQuery, V2OrderList};
use paydesk_sandbox::{Fault, MAX_FAULT_MS};
use serde_json::json;

fn jittered(latency_ms: u64, latency_jitter_ms: u64, seed: u64) -> Fault {
    Fault {
        latency_ms,
        latency_jitter_ms,
        seed,
        ..Fault::default()
    }
}

/// The latencies of the first `n` requests under `fault`, in milliseconds.
fn draws(fault: Fault, n: usize) -> Vec<u64> {
    let mut armed = fault.arm();
    (0..n)
        .map(|_| u64::try_from(armed.latency().as_millis()).unwrap())
        .collect()
}

#[test]
fn jitter_stays_within_its_bounds_and_repeats_with_its_seed() {
    let d = draws(jittered(50, 30, 7), 2_000);
    assert!(d.iter().all(|ms| (50..=80).contains(ms)), "{d:?}");
    // Both ends are drawn: 0..=30 is inclusive.
    assert_eq!((d.iter().min(), d.iter().max()), (Some(&50), Some(&80)));
    assert_eq!(d, draws(jittered(50, 30, 7), 2_000), "the same seed");
    assert_ne!(d, draws(jittered(50, 30, 8), 2_000), "another seed");
    // No jitter: the latency as set, every time.
    assert!(draws(jittered(50, 0, 7), 100).iter().all(|ms| *ms == 50));
    // At the bounds, nothing overflows.
    let top = draws(jittered(MAX_FAULT_MS, MAX_FAULT_MS, 1), 100);
    assert!(top.iter().all(|ms| *ms <= 2 * MAX_FAULT_MS), "{top:?}");
}

#[test]
fn jitter_leaves_the_faults_outcomes_as_the_seed_had_them() {
    let outcomes = |jitter: u64| {
        let mut armed = Fault {
            drop_rate: 0.3,
            error_rate: 0.2,
            ..jittered(10, jitter, 42)
        }
        .arm();
        (0..200)
            .map(|_| {
                armed.latency();
                format!("{:?}", armed.roll())
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(outcomes(0), outcomes(500));
}

#[test]
fn the_rust_check_names_the_jitter_field() {
    assert_eq!(
        jittered(0, MAX_FAULT_MS + 1, 0).check().unwrap_err(),
        "latencyJitterMs: must be an integer from 0 to 120000 (milliseconds)"
    );
    assert!(jittered(MAX_FAULT_MS, MAX_FAULT_MS, 0).check().is_ok());
}

#[tokio::test]
async fn the_simulation_api_takes_a_jitter_within_its_bounds() {
    let r = start().await;
    for (value, rule) in [
        (
            json!(MAX_FAULT_MS + 1),
            "latencyJitterMs: must be an integer from 0 to 120000 (milliseconds)",
        ),
        (json!(-1), "latencyJitterMs: must be an integer from 0 to"),
        (json!("5"), "latencyJitterMs: must be an integer from 0 to"),
        (json!(2.5), "latencyJitterMs: must be an integer from 0 to"),
        (json!(null), "latencyJitterMs: must be an integer from 0 to"),
    ] {
        let body = json!({"route": "*", "latencyJitterMs": value});
        let (status, v) = sim(&r, "/__sandbox/faults", body).await;
        assert_eq!(status, 400, "{value}: {v}");
        assert!(
            v["error"].as_str().unwrap().starts_with(rule),
            "{value}: {v}"
        );
    }
    let body =
        json!({"route": "/v2/balance/query", "latencyMs": 100, "latencyJitterMs": 100, "seed": 3});
    let (status, v) = sim(&r, "/__sandbox/faults", body).await;
    assert_eq!(status, 200, "{v}");
    let faults: serde_json::Value = reqwest::get(r.base_url().join("__sandbox/faults").unwrap())
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let set = &faults["/v2/balance/query"];
    assert_eq!(
        (&set["latencyMs"], &set["latencyJitterMs"]),
        (&json!(100), &json!(100)),
        "{faults}"
    );

    // Every request waits at least the fixed part (how much more is the client's
    // and the machine's time as well as the jitter's, so only the floor is checked).
    let c = client(&r);
    for _ in 0..3 {
        let t = Instant::now();
        c.send(&V2BalanceQuery {
            mer_no: MerNo(MER),
            currency: "USD".into(),
        })
        .await
        .unwrap();
        assert!(
            t.elapsed() >= Duration::from_millis(100),
            "{:?}",
            t.elapsed()
        );
    }
}

/// A delayed request waits on a timer, not on the server: on one thread, 8 order
/// lists each held 200 ms are answered together, in far less than 8 × 200 ms.
#[tokio::test]
async fn a_latency_fault_delays_requests_without_holding_the_server() {
    let r = start().await;
    r.sandbox.set_fault(V2OrderList::PATH, jittered(200, 0, 0));
    let c = client(&r);
    let started = Instant::now();
    let lists = (0..8).map(|i| {
        let c = &c;
        async move {
            let t = Instant::now();
            let no = format!("LAT-{i}");
            c.send(&list_by_mer_order(&[no.as_str()])).await.unwrap();
            t.elapsed()
        }
    });
    let each = futures_util::future::join_all(lists).await;
    let all = started.elapsed();
    assert!(
        each.iter().all(|d| *d >= Duration::from_millis(200)),
        "{each:?}"
    );
    assert!(all < Duration::from_millis(1_000), "8 lists took {all:?}");
    let t = r.sandbox.traffic();
    assert_eq!(t.requests, 8);
    // They arrived together, before any was answered.
    assert_eq!(t.max_per_second, 8, "{t:?}");
}
