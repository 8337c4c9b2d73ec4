//! The built-in sandbox profile opened through the session, with the real keyring and
//! real SQLite files: no set-up, the simulation actions, lost answers.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use paydesk_core::CoreError;
use paydesk_core::journal::Status;
use paydesk_core::store::orders::OrderFilter;
use paydesk_core::sync::SyncOptions;
use paydesk_session::{SimulateAction, builtin};

fn all_time() -> SyncOptions {
    let mut o = SyncOptions::last_days(400);
    o.to = chrono::Utc::now() + chrono::Duration::days(1);
    o
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_built_in_sandbox_profile_works_with_no_set_up() {
    let home_dir = tempfile::tempdir().unwrap();
    let session = common::session(home_dir.path());
    let secrets = session.secrets().unwrap();
    let home = session.home();
    let profile = builtin::ensure_profile(home, &secrets).unwrap();
    assert!(profile.is_sandbox());
    assert_eq!(home.active().unwrap().as_deref(), Some("sandbox"));
    let desk = session.open(Some("sandbox")).await.unwrap();

    let report = desk
        .orders()
        .sync(&all_time(), Arc::new(AtomicBool::new(false)), |_| {})
        .await
        .unwrap();
    assert_eq!(report.progress.orders as usize, builtin::DEMO_ORDERS);
    let page = desk.orders().page(&OrderFilter::default(), 0, 100).unwrap();
    assert_eq!(page.total as usize, builtin::DEMO_ORDERS);
    assert!(page.rows.iter().all(|o| o.signature_verified));

    let detail = desk
        .orders()
        .order_detail(&page.rows[0].trade_no)
        .await
        .unwrap();
    assert_eq!(
        detail.signature,
        Some(paydesk_gateway::SignatureStatus::Verified)
    );
    assert_eq!(detail.live.unwrap().trade_no, page.rows[0].trade_no);

    let usd = desk.money().balance("USD").await.unwrap();
    assert!(!usd.total_balance.is_empty());
    let dash = desk.orders().dashboard().unwrap();
    assert_eq!(dash.cached_orders as usize, builtin::DEMO_ORDERS);
    assert_eq!(dash.balances.len(), 1);
    assert!(!dash.days.is_empty());
    assert!(dash.last_sync.is_some());
    assert!(desk.journal().audit_verify().unwrap().ok);
    // The sandbox's own cards, with their balances, through the desk's control.
    let cards = desk.money().cards().unwrap();
    assert_eq!(cards.len(), 2, "{cards:?}");
    assert!(
        cards
            .iter()
            .all(|c| c.balance.is_some() && c.holder.is_some())
    );
    drop(desk);

    // A second start finds everything where it was: same demo data, no second seeding.
    let desk = session.open(None).await.unwrap();
    let n = desk
        .sandbox()
        .unwrap()
        .sandbox()
        .with_state(|s| s.orders.len());
    assert_eq!(n, builtin::DEMO_ORDERS);
    secrets.forget("sandbox").unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_simulation_moves_an_order_and_the_cache_follows() {
    let home_dir = tempfile::tempdir().unwrap();
    let session = common::session(home_dir.path());
    let secrets = session.secrets().unwrap();
    builtin::ensure_profile(session.home(), &secrets).unwrap();
    let desk = session.open(Some("sandbox")).await.unwrap();
    desk.orders()
        .sync(&all_time(), Arc::new(AtomicBool::new(false)), |_| {})
        .await
        .unwrap();
    let pending = OrderFilter {
        states: vec![2],
        ..OrderFilter::default()
    };
    let before = desk.orders().page(&pending, 0, 1).unwrap();
    let order = before.rows[0].clone();

    // A pending order can be paid, failed or closed; nothing else.
    assert_eq!(
        desk.simulation_actions(&order.trade_no).unwrap(),
        vec![
            SimulateAction::Pay,
            SimulateAction::Fail,
            SimulateAction::Close
        ]
    );
    desk.simulate(&order.trade_no, SimulateAction::Pay, None)
        .await
        .unwrap();
    let after = desk.orders().page(&pending, 0, 1).unwrap();
    assert_eq!(
        after.total,
        before.total - 1,
        "the cache re-read the order's day"
    );
    let detail = desk.orders().order_detail(&order.trade_no).await.unwrap();
    assert!(detail.states().contains(&5), "{:?}", detail.timeline);
    assert_eq!(detail.order.unwrap().state, 5);
    assert_eq!(detail.live.unwrap().status, "SUCCESS");

    // Paid, it can be refunded or charged back, not paid again: an action that does not
    // apply is refused before the sandbox is asked, naming the rule; a made-up one too.
    let now = desk.simulation_actions(&order.trade_no).unwrap();
    assert!(now.contains(&SimulateAction::Refund), "{now:?}");
    assert!(!now.contains(&SimulateAction::Pay), "{now:?}");
    match desk
        .simulate(&order.trade_no, SimulateAction::Pay, None)
        .await
    {
        Err(CoreError::Validation { field, rule }) => {
            assert_eq!(field, "action");
            assert!(rule.contains("success"), "{rule}");
        }
        other => panic!("{other:?}"),
    }
    // A refund's number comes back (the V1 refund query needs it) and the order's
    // timeline shows the refund under it, with its amount.
    let refund_no = desk
        .simulate(&order.trade_no, SimulateAction::Refund, Some("1.00"))
        .await
        .unwrap()
        .expect("the refund's number");
    let timeline = desk
        .desk()
        .orders()
        .order_timeline(&order.trade_no)
        .unwrap();
    assert!(
        timeline.iter().any(|e| matches!(e,
            paydesk_core::desk::TimelineEvent::Reversal { refund_no: n, amount: Some(a), state, .. }
                if *n == refund_no && a == "1.00" && state.is_empty())),
        "{timeline:?}"
    );
    match "explode".parse::<SimulateAction>() {
        Err(CoreError::Validation { field, .. }) => assert_eq!(field, "action"),
        other => panic!("{other:?}"),
    }
    match desk.simulate("T-NOPE", SimulateAction::Pay, None).await {
        Err(CoreError::Rejected { gateway_code, .. }) => assert_eq!(gateway_code, "HTTP 404"),
        other => panic!("{other:?}"),
    }
    // Each step is in the audit log.
    let steps = desk
        .journal()
        .audit_list(&paydesk_core::audit::AuditFilter::default())
        .unwrap()
        .into_iter()
        .filter(|r| r.operation == "sandbox.simulate")
        .count();
    assert_eq!(steps, 3, "the refused action never reached the sandbox");
    secrets.forget("sandbox").unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_answer_leaves_the_payout_unknown_and_only_that_payout() {
    let home_dir = tempfile::tempdir().unwrap();
    let session = common::session(home_dir.path());
    let secrets = session.secrets().unwrap();
    let desk = session.open(None).await.unwrap();

    let form = common::payout_form("PO-LOST-1", "10.00");
    // The core answers with the entry's receipt although the answer was lost.
    let receipt = desk.payout_losing_answer(&form).await.unwrap();
    assert_eq!(receipt.entry.status, Status::Unknown, "{receipt:?}");
    let at_gateway = desk
        .sandbox()
        .unwrap()
        .sandbox()
        .orders_numbered(desk.profile.mer_no, "PO-LOST-1");
    assert_eq!(at_gateway, 1, "committed before the answer was lost");

    // The fault is gone after that payout: the next one is answered.
    let next = desk
        .money()
        .payout(&common::payout_form("PO-LOST-2", "11.00"))
        .await
        .unwrap();
    assert_eq!(next.entry.status, Status::Accepted, "{next:?}");
    secrets.forget("sandbox").unwrap();
}
