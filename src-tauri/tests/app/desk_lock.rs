//! The idle lock of a single desk that holds a live profile's merchant key, through the
//! app's state against the real keyring and real files: it locks, wrong passwords are
//! throttled after three, a relaunch (a new state on the same home) starts locked and
//! still waits, every try is in the profile's audit log, and the right password opens
//! the desk once the wait is over.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use paydesk_app::state::AppState;
use paydesk_core::audit::AuditFilter;
use paydesk_core::{CoreError, Home, KeyringStore, Profile};

const DESK_PASSWORD: &str = "the-desk-password";

fn service(test: &str) -> String {
    let service = format!("PayDesk-app-test-{test}-{}", std::process::id());
    for _ in 0..50 {
        if KeyringStore::open(&service).is_ok() {
            return service;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("the OS keyring is not available; run under /work/tools/ktest");
}

/// A live profile `live` (a gateway address of its own, here a closed port) holding a
/// merchant key, active, with a desk password.
fn live_desk(home: &Home, service: &str) {
    let secrets = paydesk_session::Session::new(home.clone(), service)
        .secrets()
        .unwrap();
    secrets.generate_merchant_key("live", 2048).unwrap();
    let gateway = secrets
        .generate_merchant_key("gateway-key-source", 2048)
        .unwrap();
    secrets
        .set_gateway_key("live", &gateway.public_pem)
        .unwrap();
    secrets.set_bearer("live", "token").unwrap();
    home.put(Profile {
        name: "live".into(),
        base_url: Some("http://127.0.0.1:9/".into()),
        mer_no: 10001,
        origin: "https://shop.example".into(),
        lang: "en".into(),
        order_type: None,
        operator: "tester".into(),
        notify_url: "https://shop.example/notify".into(),
        notify_at_desk: false,
        proxy: String::new(),
        safety: Default::default(),
        sync: Default::default(),
        team: None,
    })
    .unwrap();
    home.activate("live").unwrap();
    secrets.set_desk_password("live", DESK_PASSWORD).unwrap();
    secrets.forget("gateway-key-source").unwrap();
}

fn rule(e: CoreError) -> String {
    match e {
        CoreError::Validation { field, rule } => {
            assert_eq!(field, "password");
            rule.text
        }
        other => panic!("not a refusal of the password: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_unlocks_are_throttled_across_a_relaunch_and_audited() {
    let dir = tempfile::tempdir().unwrap();
    let service = service("desk-lock");
    live_desk(&Home::at(dir.path()), &service);

    let state = AppState::new(Home::at(dir.path()), &service);
    state.desk().await.unwrap();
    assert!(
        state.lock_now().await,
        "a single live desk with a desk password locks"
    );
    assert!(matches!(
        state.desk().await.unwrap_err(),
        CoreError::Locked { .. }
    ));

    for n in 1..=3 {
        let r = rule(state.unlock("not-the-password").await.unwrap_err());
        assert!(r.contains(&format!("failed try {n}")), "{r}");
        assert!(!r.contains("next try"), "{r}");
    }
    // Three more sent together: one at a time, so only the first is checked (the
    // fourth failure), and the two after it wait.
    let w = "not-the-password";
    let (a, b, c) = tokio::join!(state.unlock(w), state.unlock(w), state.unlock(w));
    let mut said: Vec<String> = [a, b, c]
        .into_iter()
        .map(|r| rule(r.unwrap_err()))
        .collect();
    said.sort();
    assert!(
        said[0].starts_with("4 wrong passwords in a row"),
        "{said:?}"
    );
    assert!(
        said[1].starts_with("4 wrong passwords in a row"),
        "{said:?}"
    );
    assert!(
        said[2].contains("(failed try 4); the next try is possible in 30 s"),
        "{said:?}"
    );
    // Waiting: the right password is refused without being checked.
    let r = rule(state.unlock(DESK_PASSWORD).await.unwrap_err());
    assert!(r.starts_with("4 wrong passwords in a row"), "{r}");
    drop(state);

    // A relaunch: locked, and the wait goes on.
    let state = AppState::new(Home::at(dir.path()), &service);
    assert!(state.lock_state().0, "the relaunched app starts locked");
    assert!(state.desk().await.is_err());
    let r = rule(state.unlock(DESK_PASSWORD).await.unwrap_err());
    assert!(r.starts_with("4 wrong passwords in a row"), "{r}");

    // Thirty seconds later (the last failure moved back in the file, as time would).
    let file = dir.path().join("desk-lock.json");
    let mut kept: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(kept["locked"], "live");
    assert_eq!(kept["failures"], 4);
    let last = kept["lastFailureMs"].as_i64().unwrap();
    kept["lastFailureMs"] = (last - 31_000).into();
    std::fs::write(&file, serde_json::to_vec(&kept).unwrap()).unwrap();
    state.unlock(DESK_PASSWORD).await.unwrap();
    assert!(!state.lock_state().0);

    let desk = state.desk().await.unwrap();
    let tries = desk
        .journal()
        .audit_list(&AuditFilter {
            operation: Some("session.unlock".into()),
            ..Default::default()
        })
        .unwrap();
    let results: Vec<&str> = tries.iter().rev().map(|a| a.result.as_str()).collect();
    assert_eq!(results.len(), 9, "{results:?}");
    assert_eq!(&results[..4], ["refused: wrong password"; 4]);
    for r in &results[4..8] {
        assert!(r.starts_with("refused: waiting "), "{results:?}");
    }
    assert_eq!(results[8], "ok");
    assert!(tries.iter().all(|a| a.identifiers.contains("profile=live")));
    assert!(
        desk.journal().audit_verify().unwrap().ok,
        "the chain holds the tries"
    );

    // Unlocked for good: the file says so, and a relaunch opens the desk.
    drop(state);
    let state = AppState::new(Home::at(dir.path()), &service);
    assert!(!state.lock_state().0);
    state.desk().await.unwrap();
    paydesk_session::Session::new(Home::at(dir.path()), &service)
        .secrets()
        .unwrap()
        .forget("live")
        .unwrap();
}
