//! `paydesk payout limits` while a desk is open on the same profile (the app all day, an
//! admin in a terminal): the open desk's next payout obeys the limits just set
//! (review-money-r5 F7).

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;

use common::*;
use paydesk_core::forms::{PayoutForm, PayoutKind};
use paydesk_core::{Desk, Endpoint, Home, KeyringStore, Secrets};

fn form(no: &str, amount: &str) -> PayoutForm {
    PayoutForm {
        clabe: "002010077777777771".into(),
        ..PayoutForm::new(PayoutKind::Clabe, no, amount, "MXN")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_set_from_the_cli_hold_at_the_open_desks_next_payout() {
    let (mut env, running, _) = setup().await;
    let mut m = running.sandbox.with_state(|s| s.merchants[&10001].clone());
    m.opening.insert("MXN".into(), "100000".parse().unwrap());
    running.sandbox.add_merchant(m);
    let secrets = Secrets::new(Arc::new(KeyringStore::open(&env.service).unwrap()))
        .with_service(&env.service);
    let desk = Desk::open(
        &Home::at(env.home.path()),
        secrets,
        "ext",
        Endpoint::Profile,
    )
    .unwrap();
    desk.money().payout(&form("LIVE-1", "45.00")).await.unwrap();

    env.ok(&[
        "payout",
        "limits",
        "--currency",
        "MXN",
        "--per-payout",
        "40",
    ]);
    let e = desk
        .money()
        .payout(&form("LIVE-2", "41.00"))
        .await
        .unwrap_err();
    let key = serde_json::to_value(&e).unwrap()["ruleKey"].clone();
    assert_eq!(key, "limitPerPayout", "{e}");
    assert_eq!(running.sandbox.orders_numbered(10001, "LIVE-2"), 0);

    env.ok(&[
        "payout",
        "limits",
        "--currency",
        "MXN",
        "--per-payout",
        "none",
    ]);
    desk.money().payout(&form("LIVE-2", "41.00")).await.unwrap();
    assert_eq!(running.sandbox.orders_numbered(10001, "LIVE-2"), 1);
}
