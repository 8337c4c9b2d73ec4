//! Notifications with retries, persistence across a restart, and injected faults.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use common::*;
use paydesk_gateway::wire::*;
use paydesk_gateway::{GatewayError, SignSettings, verify_body};
use paydesk_sandbox::Fault;
use serde_json::{Map, Value, json};

/// A receiver that fails the first `fail_first` deliveries of each tradeNo+kind.
async fn receiver(fail_first: usize) -> (String, Arc<Mutex<Vec<Map<String, Value>>>>) {
    let got: Arc<Mutex<Vec<Map<String, Value>>>> = Arc::default();
    let g = got.clone();
    let app = axum::Router::new().fallback(move |body: Bytes| {
        let g = g.clone();
        async move {
            let v: Map<String, Value> = serde_json::from_slice(&body).unwrap();
            let mut all = g.lock().unwrap();
            let seen = all
                .iter()
                .filter(|n| n["tradeNo"] == v["tradeNo"] && n["notifyType"] == v["notifyType"])
                .count();
            all.push(v);
            if seen < fail_first {
                (axum::http::StatusCode::INTERNAL_SERVER_ERROR, "try later")
            } else {
                (axum::http::StatusCode::OK, "SUCCESS")
            }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/notify"), got)
}

async fn wait_for(mut f: impl FnMut() -> bool) {
    for _ in 0..200 {
        if f() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("condition not met in time");
}

#[tokio::test]
async fn every_kind_of_notification_arrives_signed_after_retries() {
    let r = start().await;
    let c = client(&r);
    let (url, got) = receiver(2).await;
    let gateway = gateway_public(&r);

    // pay, refund, chargeback on one payin; card on a top-up; edd on a review.
    let mut common = payin("N-1", "40.00", "EUR");
    common.notify_url = url.clone();
    let sepa = V1Payment {
        common,
        version: "V3.0.0".into(),
        method: V1Method::Sepa(SepaExtras {
            user_agent: "UA".into(),
            billing_first_name: "A".into(),
            billing_last_name: "B".into(),
        }),
    };
    let trade_no = c.send(&sepa).await.unwrap().data.trade_no;
    sim(&r, &format!("/__sandbox/orders/{trade_no}/pay"), json!({})).await;
    sim(
        &r,
        &format!("/__sandbox/orders/{trade_no}/refund"),
        json!({"amount": "10.00"}),
    )
    .await;
    sim(
        &r,
        &format!("/__sandbox/orders/{trade_no}/chargeback"),
        json!({}),
    )
    .await;
    let review = V1TransferOrderSubmit {
        mer_no: MerNo(MER),
        trade_no: trade_no.clone(),
        info_list: vec![InfoItem {
            info_type: "2".into(),
            info_content: "remark".into(),
        }],
        file_list: vec![],
    };
    c.send(&review).await.unwrap();
    sim(&r, "/__sandbox/reviews/1/approve", json!({})).await;
    r.sandbox.add_merchant(paydesk_sandbox::Merchant {
        card_notify_url: url.clone(),
        ..r.sandbox.with_state(|s| s.merchants[&MER].clone())
    });
    let top = V2CardTopUp {
        mer_no: MerNo(MER),
        sub_mer_no: "SUB-1".into(),
        mer_order_no: "N-TU".into(),
        apply_order_no: CARD.into(),
        amount: dec("5.00"),
        currency: "USD".into(),
        remark: String::new(),
        sign_type: "RSA256".into(),
        version: "V2.0.0".into(),
    };
    c.send(&top).await.unwrap();

    wait_for(|| {
        r.sandbox
            .notifications()
            .iter()
            .filter(|n| n.delivered)
            .count()
            == 5
    })
    .await;
    let notes = r.sandbox.notifications();
    let kinds: Vec<&str> = notes.iter().map(|n| n.kind.as_str()).collect();
    for k in ["pay", "refund", "chargeback", "edd", "card"] {
        assert!(kinds.contains(&k), "{k} in {kinds:?}");
    }
    for n in &notes {
        assert_eq!(n.attempts.len(), 3, "two failures, then SUCCESS: {n:?}");
        assert_eq!(n.attempts[0].status, Some(500));
        assert!(
            n.attempts[1].at - n.attempts[0].at >= chrono::Duration::milliseconds(35),
            "retries wait"
        );
        assert!(
            n.attempts[2].at - n.attempts[1].at >= chrono::Duration::milliseconds(75),
            "and twice as long the next time"
        );
    }
    // Each delivery the receiver got verifies with the gateway key.
    for body in got.lock().unwrap().iter() {
        let sign = body["sign"].as_str().unwrap();
        verify_body(body, &SignSettings::default(), &gateway, sign).unwrap();
    }
    assert_eq!(got.lock().unwrap().len(), 15);
}

#[tokio::test]
async fn a_restart_with_a_database_keeps_every_order_and_balance() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sandbox.db");
    let r = start_with(config(Some(db.clone()))).await;
    let c = client(&r);
    let a = c
        .send(&V2Payment {
            common: payin("P-1", "100.00", "CNY"),
        })
        .await
        .unwrap();
    sim(
        &r,
        &format!("/__sandbox/orders/{}/pay", a.data.trade_no),
        json!({}),
    )
    .await;
    c.send(&clabe_payout("P-2", "10.00")).await.unwrap();
    r.sandbox.seed(&paydesk_sandbox::SeedSpec::new(500));
    let (orders, balances, cards) = r
        .sandbox
        .with_state(|s| (s.orders.clone(), s.balances.clone(), s.cards.clone()));
    r.stop().await;

    let r = start_with(config(Some(db))).await;
    let c = client(&r);
    r.sandbox.with_state(|s| {
        assert_eq!(s.orders, orders);
        assert_eq!(s.balances, balances);
        assert_eq!(s.cards, cards);
        s.check_ledger().unwrap();
    });
    // Numbers keep counting, and the old merOrderNo is still taken.
    let err = c
        .send(&V2Payment {
            common: payin("P-1", "1.00", "CNY"),
        })
        .await
        .unwrap_err();
    assert!(
        matches!(err, GatewayError::Rejected { ref code, .. } if code == "E1011"),
        "{err}"
    );
    let b = c
        .send(&V2Payment {
            common: payin("P-3", "1.00", "CNY"),
        })
        .await
        .unwrap();
    assert!(orders.iter().all(|o| o.trade_no != b.data.trade_no));
}

#[tokio::test]
async fn injected_faults_behave_as_documented() {
    let r = start().await;
    let c = client(&r);

    // Dropped after commit: the caller cannot tell, but the order exists.
    r.sandbox.set_fault(
        "/v2/payout",
        Fault {
            drop_rate: 1.0,
            ..Fault::default()
        },
    );
    let err = c.send(&clabe_payout("F-1", "10.00")).await.unwrap_err();
    assert!(matches!(err, GatewayError::OutcomeUnknown { .. }), "{err}");
    r.sandbox.clear_faults();
    assert_eq!(
        c.send(&list_by_mer_order(&["F-1"]))
            .await
            .unwrap()
            .data
            .total,
        1
    );

    // 503 before anything: no order.
    r.sandbox.set_fault(
        "/v2/payout",
        Fault {
            error_rate: 1.0,
            ..Fault::default()
        },
    );
    let err = c.send(&clabe_payout("F-2", "10.00")).await.unwrap_err();
    assert!(matches!(err, GatewayError::OutcomeUnknown { .. }), "{err}");
    r.sandbox.clear_faults();
    assert_eq!(
        c.send(&list_by_mer_order(&["F-2"]))
            .await
            .unwrap()
            .data
            .total,
        0
    );

    // Malformed after commit.
    r.sandbox.set_fault(
        "*",
        Fault {
            malformed_rate: 1.0,
            ..Fault::default()
        },
    );
    let err = c.send(&clabe_payout("F-3", "10.00")).await.unwrap_err();
    assert!(matches!(err, GatewayError::BadResponse { .. }), "{err}");
    r.sandbox.clear_faults();
    assert_eq!(
        c.send(&list_by_mer_order(&["F-3"]))
            .await
            .unwrap()
            .data
            .total,
        1
    );

    // A wrong answer signature.
    r.sandbox.set_fault(
        "/v2/order/queryOrderList",
        Fault {
            bad_signature_rate: 1.0,
            ..Fault::default()
        },
    );
    let err = c.send(&list_by_mer_order(&["F-3"])).await.unwrap_err();
    assert!(
        matches!(err, GatewayError::SignatureInvalid { .. }),
        "{err}"
    );

    // Latency past the client's timeout is an unknown outcome.
    r.sandbox.set_fault(
        "/v2/balance/query",
        Fault {
            latency_ms: 6000,
            ..Fault::default()
        },
    );
    let err = c
        .send(&V2BalanceQuery {
            mer_no: MerNo(MER),
            currency: "USD".into(),
        })
        .await
        .unwrap_err();
    assert!(matches!(err, GatewayError::OutcomeUnknown { .. }), "{err}");

    // Rates with a seed are reproducible.
    let pattern = |seed: u64| {
        let mut f = Fault {
            drop_rate: 0.3,
            error_rate: 0.2,
            seed,
            ..Fault::default()
        }
        .arm();
        (0..50)
            .map(|_| format!("{:?}", f.roll()))
            .collect::<Vec<_>>()
    };
    assert_eq!(pattern(7), pattern(7));
    assert_ne!(pattern(7), pattern(8));
    r.sandbox.with_state(|s| s.check_ledger()).unwrap();
}

#[tokio::test]
async fn magic_amounts_and_auto_completion() {
    let mut cfg = config(None);
    cfg.auto_complete_after = Some(Duration::from_millis(50));
    let r = start_with(cfg).await;
    let c = client(&r);
    let ok = c
        .send(&V2Payment {
            common: payin("A-1", "10.00", "CNY"),
        })
        .await
        .unwrap()
        .data
        .trade_no;
    let fail = c
        .send(&V2Payment {
            common: payin("A-2", "10.13", "CNY"),
        })
        .await
        .unwrap()
        .data;
    assert_eq!(fail.pay_code, 1);
    let hold = c
        .send(&V2Payment {
            common: payin("A-3", "10.44", "CNY"),
        })
        .await
        .unwrap()
        .data
        .trade_no;
    let close = c
        .send(&V2Payment {
            common: payin("A-4", "10.55", "CNY"),
        })
        .await
        .unwrap()
        .data
        .trade_no;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let state = |t: &str| r.sandbox.with_state(|s| s.order(t).unwrap().state);
    assert_eq!(state(&ok), 5);
    assert_eq!(state(&fail.trade_no), 3);
    assert_eq!(state(&hold), 2);
    assert_eq!(state(&close), 4);
}

/// A payin whose notifyUrl is the sandbox's own reset: the notification is given up,
/// never sent, and the orders stay.
#[tokio::test]
async fn a_notify_url_on_the_simulation_api_is_never_called() {
    let r = start().await;
    let c = client(&r);
    let mut common = payin("RESET-1", "10.00", "CNY");
    common.notify_url = r.base_url().join("__sandbox/reset").unwrap().to_string();
    let trade_no = c.send(&V2Payment { common }).await.unwrap().data.trade_no;
    sim(&r, &format!("/__sandbox/orders/{trade_no}/pay"), json!({})).await;
    let mut given_up = false;
    for _ in 0..100 {
        given_up = r.sandbox.notifications().iter().any(|n| {
            n.gave_up
                && n.attempts
                    .iter()
                    .any(|a| a.detail.contains("simulation API"))
        });
        if given_up {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(given_up, "{:?}", r.sandbox.notifications());
    assert_eq!(
        r.sandbox.with_state(|s| s.orders.len()),
        1,
        "the orders stay"
    );
}
