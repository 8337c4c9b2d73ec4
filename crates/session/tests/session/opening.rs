//! Opening a desk on a gateway of its own (not the built-in sandbox) through the
//! session: no network at opening, the start-up reconcile in the background, the
//! notification receiver, and the sandbox's control refused.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::{Duration, Instant};

use paydesk_core::journal::Status;
use paydesk_core::{CoreError, Profile, new_mer_order_no};
use paydesk_gateway::wire::MerNo;
use paydesk_sandbox::Fault;
use paydesk_session::{SimulateAction, receiver};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simulation_and_lost_answers_are_refused_on_a_real_gateway_profile() {
    let f = common::Fixture::new("ext").await;
    let desk = f.session.open(Some("ext")).await.unwrap();
    assert!(desk.sandbox().is_none());
    match desk.simulate("T1", SimulateAction::Pay, None).await {
        Err(CoreError::Validation { field, .. }) => assert_eq!(field, "profile"),
        other => panic!("{other:?}"),
    }
    match desk
        .payout_losing_answer(&common::payout_form("PO-EXT-1", "10.00"))
        .await
    {
        Err(CoreError::Validation { field, .. }) => assert_eq!(field, "profile"),
        other => panic!("{other:?}"),
    }
    assert!(
        desk.journal().entries(&[], 10).unwrap().is_empty(),
        "nothing was sent"
    );
}

/// A payout whose answer is lost: committed at the gateway, unknown at the desk.
async fn lose_a_payout(f: &common::Fixture, no: &str, amount: &str) -> i64 {
    let lose = Fault {
        drop_rate: 1.0,
        ..Fault::default()
    };
    f.running.sandbox.set_fault("/v2/payout", lose);
    let desk = f.session.open(Some(&f.name)).await.unwrap();
    let form = common::payout_form(no, amount);
    // The core answers with the entry's receipt although the answer was lost.
    let receipt = desk.money().payout(&form).await.unwrap();
    f.running.sandbox.clear_faults();
    assert_eq!(receipt.entry.status, Status::Unknown, "{receipt:?}");
    receipt.entry.id
}

/// The app's start reconciles in the background what an earlier run left unknown; a
/// desk opens without waiting on its gateway, even one that never answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_start_up_reconcile_runs_in_the_background_and_opening_waits_on_no_gateway() {
    let f = common::Fixture::new("bg").await;
    let id = lose_a_payout(&f, "PO-BG-1", "10.00").await;
    let desk = f.session.start(Some("bg")).await.unwrap();
    let t = Instant::now();
    let entry = loop {
        let e = desk.journal().entry(id).unwrap();
        if e.status != Status::Unknown || t.elapsed() > Duration::from_secs(20) {
            break e;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(entry.status, Status::Accepted, "{entry:?}");
    assert!(entry.trade_no.is_some());
    let at_gateway = f.running.sandbox.orders_numbered(common::MER, "PO-BG-1");
    assert_eq!(at_gateway, 1, "looked up, never sent again");
    drop(desk);

    // Another lost answer; then the gateway moves to an address that takes connections
    // and never answers (a lookup there waits for the client's time limit).
    lose_a_payout(&f, "PO-BG-2", "11.00").await;
    let black_hole = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let online = f.session.home().get("bg").unwrap();
    f.session
        .home()
        .put(Profile {
            base_url: Some(format!("http://{}/", black_hole.local_addr().unwrap())),
            ..online
        })
        .unwrap();
    for starting in [false, true] {
        let t = Instant::now();
        let desk = if starting {
            f.session.start(Some("bg")).await.unwrap()
        } else {
            f.session.open(Some("bg")).await.unwrap()
        };
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "opening (start: {starting}) waited on the gateway: {:?}",
            t.elapsed()
        );
        let unknown = desk.journal().entries(&[Status::Unknown], 10).unwrap();
        assert_eq!(unknown.len(), 1, "still unknown, and shown as such");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_reach_the_desks_endpoint_verified() {
    let f = common::Fixture::new("rcv").await;
    // Without `notifyAtDesk` the profile's own URL is used, receiver or not; the app's
    // start runs none for it.
    let open = f.session.start(Some("rcv")).await.unwrap();
    assert!(open.receiver().is_none());
    let _receiver = receiver::serve(open.desk().clone()).await.unwrap();
    assert_eq!(
        open.records().notify_url().unwrap(),
        "http://127.0.0.1:9/notify"
    );
    drop(open);
    // Chosen explicitly, the desk's receiver is where notifications go.
    let online = f.session.home().get(&f.name).unwrap();
    f.session
        .home()
        .put(Profile {
            notify_at_desk: true,
            notify_url: String::new(),
            ..online
        })
        .unwrap();
    let open = f.session.open(Some("rcv")).await.unwrap();
    assert!(
        open.records().notify_url().is_err(),
        "no receiver runs yet: the desk must refuse rather than invent an address"
    );
    drop(open);
    // The app's start runs it.
    let desk = f.session.start(Some("rcv")).await.unwrap();
    let receiver = desk.receiver().unwrap();
    assert_eq!(desk.records().notify_url().unwrap(), receiver.url());
    assert_eq!(
        desk.records().notify_target(),
        paydesk_core::profile::NotifyTarget::Desk {
            url: Some(receiver.url())
        }
    );
    let common = paydesk_gateway::wire::PayinCommon {
        mer_no: MerNo(common::MER),
        mer_order_no: new_mer_order_no("PI"),
        currency_code: "CNY".into(),
        source_amount: "12.00".parse().unwrap(),
        return_url: String::new(),
        notify_url: desk.records().notify_url().unwrap(),
        ip_address: "203.0.113.7".into(),
        user_id: String::new(),
        email: String::new(),
    };
    let trade_no = desk
        .money()
        .payin_v2(common)
        .await
        .unwrap()
        .entry
        .trade_no
        .unwrap();
    let url = f
        .running
        .base_url()
        .join(&format!("__sandbox/orders/{trade_no}/pay"))
        .unwrap();
    assert!(
        reqwest::Client::new()
            .post(url)
            .json(&serde_json::json!({}))
            .send()
            .await
            .unwrap()
            .status()
            .is_success()
    );
    for _ in 0..100 {
        if f.running
            .sandbox
            .notifications()
            .iter()
            .any(|n| n.delivered)
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let sent = f.running.sandbox.notifications();
    assert!(sent[0].delivered, "{:?}", sent[0].attempts);
    let got = desk.records().notifications(10).unwrap();
    assert_eq!(got.len(), 1);
    assert!(got[0].signature_ok);
    assert_eq!(
        (got[0].kind.as_str(), got[0].trade_no.as_str()),
        ("pay", trade_no.as_str())
    );
}
