//! True and current (issue 33): a verified notification reads its order again before it
//! is kept, so the cache and the timeline hold its new state at once (a forged one
//! changes nothing); an order's refunds are looked up with their own state. Against a
//! sandbox on loopback, with the real keyring and a real SQLite file.

#![allow(clippy::unwrap_used)]

use crate::common;

use paydesk_core::desk::TimelineEvent;
use paydesk_core::new_mer_order_no;
use paydesk_gateway::wire::MerNo;

async fn simulate(
    running: &paydesk_sandbox::Running,
    trade_no: &str,
    action: &str,
    body: serde_json::Value,
) {
    let url = running
        .base_url()
        .join(&format!("__sandbox/orders/{trade_no}/{action}"))
        .unwrap();
    let r = reqwest::Client::new()
        .post(url)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{action}: {}", r.status());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verified_notification_moves_its_order_at_once_and_a_forged_one_does_not() {
    let f = common::Fixture::new("notified").await;
    let running = &f.running;
    let desk = f.desk().await;
    let payin = paydesk_gateway::wire::PayinCommon {
        mer_no: MerNo(common::MER),
        mer_order_no: new_mer_order_no("PI"),
        currency_code: "CNY".into(),
        source_amount: "120.00".parse().unwrap(),
        return_url: String::new(),
        // Nobody listens there: the sandbox keeps the signed notification.
        notify_url: "http://127.0.0.1:9/notify".into(),
        ip_address: "203.0.113.7".into(),
        user_id: String::new(),
        email: String::new(),
    };
    let trade_no = desk
        .money()
        .payin_v2(payin)
        .await
        .unwrap()
        .entry
        .trade_no
        .unwrap();
    let made = desk
        .orders()
        .cached_order(&trade_no)
        .unwrap()
        .unwrap()
        .state;
    assert_ne!(made, 5, "a new payin is not paid yet");
    simulate(running, &trade_no, "pay", serde_json::json!({})).await;
    let note = running
        .sandbox
        .notifications()
        .into_iter()
        .find(|n| n.trade_no == trade_no)
        .expect("the sandbox notified the payment");

    // A forged body (its amount changed) is kept as unverified, and moves nothing.
    let mut forged = note.body.clone();
    forged.insert("sourceAmount".into(), serde_json::json!("1.00"));
    let r = desk
        .records()
        .receive_notification(&serde_json::Value::Object(forged).to_string())
        .await
        .unwrap();
    assert!(!r.signature_ok);
    assert_eq!(
        desk.orders()
            .cached_order(&trade_no)
            .unwrap()
            .unwrap()
            .state,
        made
    );

    let r = desk
        .records()
        .receive_notification(&serde_json::Value::Object(note.body.clone()).to_string())
        .await
        .unwrap();
    assert!(r.signature_ok, "{r:?}");
    // Paid (the sandbox's list state 5), with no sync.
    assert_eq!(
        desk.orders()
            .cached_order(&trade_no)
            .unwrap()
            .unwrap()
            .state,
        5
    );
    let latest = desk.records().latest_notification().unwrap().unwrap();
    assert_eq!(
        (latest.trade_no.as_str(), latest.signature_ok),
        (trade_no.as_str(), true)
    );
    let timeline = desk.orders().order_timeline(&trade_no).unwrap();
    let states: Vec<i64> = timeline
        .iter()
        .filter_map(|e| match e {
            TimelineEvent::State {
                state, day_only, ..
            } => {
                assert!(!day_only, "an order made here has its moment");
                Some(*state)
            }
            _ => None,
        })
        .collect();
    assert_eq!(states.last(), Some(&5), "{states:?}");
    assert!(timeline.iter().any(|e| matches!(
        e,
        TimelineEvent::Notification {
            signature_ok: true,
            ..
        }
    )));

    // A partial refund: the order's page finds it, with the refund's own state.
    assert!(
        desk.orders()
            .order_reversals(&trade_no)
            .await
            .unwrap()
            .reversals
            .is_empty()
    );
    simulate(
        running,
        &trade_no,
        "refund",
        serde_json::json!({"amount": "20.00"}),
    )
    .await;
    let found = desk.orders().order_reversals(&trade_no).await.unwrap();
    assert!(found.not_looked_up.is_empty(), "{:?}", found.not_looked_up);
    assert_eq!(found.reversals.len(), 1);
    let refund = &found.reversals[0];
    assert_eq!(refund.kind, "refund");
    assert_eq!(refund.amount.as_deref(), Some("20.00"));
    assert!(
        !refund.state.is_empty(),
        "the refund's own state is not given"
    );
}
