//! One payout per intent, whatever the operator does: against a sandbox on loopback
//! that may take a reused `merOrderNo` as a new order and whose order list may show a
//! new order late, with the real keyring and real SQLite files.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;

use common::payout;
use paydesk_core::CoreError;
use paydesk_core::journal::Status;
use paydesk_core::profile::Safety;
use paydesk_gateway::wire::MerNo;
use paydesk_sandbox::{Behaviour, Fault};

/// A fixture whose profile has these safety settings.
async fn fixture(name: &str, grace_secs: u32, lookups: u32) -> common::Fixture {
    let f = common::Fixture::new(name).await;
    let mut p = f.home.get(name).unwrap();
    p.safety = Safety {
        not_found_grace_secs: grace_secs,
        not_found_lookups: lookups,
        ..Safety::default()
    };
    f.home.put(p).unwrap();
    f
}

fn audits(desk: &paydesk_core::Desk, operation: &str) -> Vec<paydesk_core::audit::AuditEntry> {
    desk.journal()
        .audit_list(&paydesk_core::audit::AuditFilter {
            operation: Some(operation.into()),
            limit: Some(100),
            ..Default::default()
        })
        .unwrap()
}

fn orders_numbered(f: &common::Fixture, no: &str) -> usize {
    f.running.sandbox.orders_numbered(common::MER, no)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_answer_stays_unknown_until_the_lagging_list_shows_it() {
    let f = fixture("lag", 4, 2).await;
    let sb = &f.running.sandbox;
    sb.set_behaviour(Behaviour {
        accept_reused_order_no: true,
        list_lag_ms: 2_000,
        speaks: None,
    });
    let desk = f.desk().await;
    // The gateway commits the payout, then the answer is lost.
    sb.set_fault(
        "/v2/payout",
        Fault {
            drop_rate: 1.0,
            ..Fault::default()
        },
    );
    let err = desk
        .money()
        .payout_clabe(payout("LAG-1", "10.00"))
        .await
        .unwrap_err();
    assert!(matches!(err, CoreError::OutcomeUnknown { .. }), "{err}");
    sb.clear_faults();
    // The list does not show it yet: "not found yet", never "safe to send again".
    let e = desk.journal().entry_by_number("LAG-1").unwrap().unwrap();
    let e = desk.journal().reconcile_entry(&e, true).await.unwrap();
    assert_eq!(e.status, Status::Unknown, "{:?}", e.message);
    assert!(e.message.unwrap().contains("not found yet"));
    // The same payout under a new number is refused, naming the first.
    match desk.money().payout_clabe(payout("LAG-2", "10.00")).await {
        Err(CoreError::Duplicate {
            earlier_mer_order_no,
            earlier_status,
            ..
        }) => {
            assert_eq!(earlier_mer_order_no, "LAG-1");
            assert_eq!(earlier_status, "unknown");
        }
        other => panic!("{other:?}"),
    }
    // The operator retries the same number: looked up, not sent.
    let again = desk
        .money()
        .payout_clabe(payout("LAG-1", "10.00"))
        .await
        .unwrap();
    assert!(again.replayed);
    assert_eq!(again.entry.status, Status::Unknown);
    assert_eq!(orders_numbered(&f, "LAG-1"), 1);
    // Once the list shows it, it is accepted with the gateway's trade number.
    tokio::time::sleep(std::time::Duration::from_millis(2_100)).await;
    let done = desk
        .money()
        .payout_clabe(payout("LAG-1", "10.00"))
        .await
        .unwrap();
    assert_eq!(done.entry.status, Status::Accepted);
    assert!(done.entry.trade_no.is_some());
    assert_eq!(orders_numbered(&f, "LAG-1"), 1, "paid once");
    assert_eq!(sb.with_state(|s| s.orders.len()), 1);
    // The same number with another amount is refused before anything is sent.
    let err = desk
        .money()
        .payout_clabe(payout("LAG-1", "11.00"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, CoreError::Validation { field, .. } if field == "merOrderNo"),
        "{err}"
    );
    // A second payout of the same intent on purpose: only when confirmed, and audited.
    desk.journal().allow_duplicate_once("LAG-3");
    let second = desk
        .money()
        .payout_clabe(payout("LAG-3", "10.00"))
        .await
        .unwrap();
    assert_eq!(second.entry.status, Status::Accepted);
    let audit = audits(&desk, "duplicate_override");
    assert_eq!(audit.len(), 1);
    assert!(audit[0].identifiers.contains("earlier=LAG-1"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_that_never_arrived_goes_again_under_its_own_number_after_the_grace() {
    let f = fixture("grace", 1, 2).await;
    let sb = &f.running.sandbox;
    sb.set_behaviour(Behaviour {
        accept_reused_order_no: true,
        list_lag_ms: 0,
        speaks: None,
    });
    let mut desk = f.desk().await;
    // The desk's clock is moved by hand: the grace period passes without waiting.
    let clock = Arc::new(paydesk_core::clock::ShiftedClock::default());
    desk.set_clock(clock.clone());
    // HTTP 503 before the gateway does anything: the outcome is unknown to the desk.
    sb.set_fault(
        "/v2/payout",
        Fault {
            error_rate: 1.0,
            ..Fault::default()
        },
    );
    assert!(
        desk.money()
            .payout_clabe(payout("GR-1", "20.00"))
            .await
            .is_err()
    );
    sb.clear_faults();
    let first = desk
        .money()
        .payout_clabe(payout("GR-1", "20.00"))
        .await
        .unwrap();
    assert_eq!(
        first.entry.status,
        Status::Unknown,
        "one lookup is not proof"
    );
    assert_eq!(orders_numbered(&f, "GR-1"), 0);
    clock.advance(std::time::Duration::from_millis(1_100));
    let sent = desk
        .money()
        .payout_clabe(payout("GR-1", "20.00"))
        .await
        .unwrap();
    assert_eq!(sent.entry.status, Status::Accepted);
    assert_eq!(sent.entry.attempts, 2, "sent again under the same number");
    assert_eq!(orders_numbered(&f, "GR-1"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reused_number_refused_on_a_resend_is_evidence_not_a_rejection() {
    // A grace shorter than the list's lag (a misconfigured profile): the resend goes,
    // the gateway refuses the reused number, and the desk does not call it rejected.
    let f = fixture("evid", 0, 1).await;
    let sb = &f.running.sandbox;
    sb.set_behaviour(Behaviour {
        accept_reused_order_no: false,
        list_lag_ms: 2_500,
        speaks: None,
    });
    let desk = f.desk().await;
    sb.set_fault(
        "/v2/payout",
        Fault {
            drop_rate: 1.0,
            ..Fault::default()
        },
    );
    assert!(
        desk.money()
            .payout_clabe(payout("EV-1", "30.00"))
            .await
            .is_err()
    );
    sb.clear_faults();
    let r = desk.money().payout_clabe(payout("EV-1", "30.00")).await;
    let e = desk.journal().entry_by_number("EV-1").unwrap().unwrap();
    assert_eq!(e.status, Status::Unknown, "{r:?} {:?}", e.message);
    assert_eq!(e.attempts, 2);
    tokio::time::sleep(std::time::Duration::from_millis(2_600)).await;
    let e = desk.journal().reconcile_entry(&e, true).await.unwrap();
    assert_eq!(e.status, Status::Accepted);
    assert_eq!(orders_numbered(&f, "EV-1"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_desks_on_one_profile_never_look_up_or_send_one_entry_at_once() {
    let f = fixture("two", 300, 3).await;
    let sb = &f.running.sandbox;
    let a = Arc::new(f.desk().await);
    let b = Arc::new(f.desk().await);
    // A's payout is slow to answer; B reconciles everything meanwhile.
    sb.set_fault(
        "/v2/payout",
        Fault {
            latency_ms: 1_500,
            ..Fault::default()
        },
    );
    let sending = {
        let a = a.clone();
        tokio::spawn(async move { a.money().payout_clabe(payout("TWO-1", "40.00")).await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let seen = b.journal().reconcile_all(true).await.unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        seen[0].status,
        Status::Sending,
        "left to the desk sending it"
    );
    let sent = sending.await.unwrap().unwrap();
    assert_eq!(sent.entry.status, Status::Accepted);
    assert!(audits(&b, "reconcile").is_empty());
    sb.clear_faults();

    // Both desks reconcile one unknown entry at once: one lookup, one outcome.
    sb.set_fault(
        "/v2/payout",
        Fault {
            drop_rate: 1.0,
            ..Fault::default()
        },
    );
    assert!(
        a.money()
            .payout_clabe(payout("TWO-2", "41.00"))
            .await
            .is_err()
    );
    sb.set_fault(
        "/v2/order/queryOrderList",
        Fault {
            latency_ms: 800,
            ..Fault::default()
        },
    );
    let e = a.journal().entry_by_number("TWO-2").unwrap().unwrap();
    let (ra, rb) = tokio::join!(
        a.journal().reconcile_entry(&e, true),
        b.journal().reconcile_entry(&e, true)
    );
    let (ra, rb) = (ra.unwrap(), rb.unwrap());
    assert!(
        [ra.status, rb.status].contains(&Status::Accepted),
        "{ra:?} {rb:?}"
    );
    assert_eq!(audits(&a, "reconcile").len(), 1);
    assert_eq!(
        a.journal().entry(e.id).unwrap().status,
        Status::Accepted,
        "one outcome in the journal"
    );
    assert_eq!(orders_numbered(&f, "TWO-2"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_withdrawal_is_resolved_by_the_operator_with_a_reason() {
    use paydesk_gateway::wire::V1CardWithdraw;
    let f = fixture("wd", 300, 3).await;
    let sb = &f.running.sandbox;
    let desk = f.desk().await;
    let op = || V1CardWithdraw {
        mer_no: MerNo(common::MER),
        apply_order_no: "CARD-1".into(),
        amount: "5.00".parse().unwrap(),
        currency: "USD".into(),
    };
    sb.set_fault(
        "/card/withdraw",
        Fault {
            drop_rate: 1.0,
            ..Fault::default()
        },
    );
    assert!(desk.money().card_withdraw(op(), "WD-1").await.is_err());
    sb.clear_faults();
    // The gateway cannot be asked: it stays unknown, saying what to do.
    let e = desk.journal().entry_by_number("WD-1").unwrap().unwrap();
    let e = desk.journal().reconcile_entry(&e, true).await.unwrap();
    assert_eq!(e.status, Status::Unknown);
    assert!(e.message.unwrap().contains("mark it done"));
    // Sending it again under its reference is not possible while it is unknown.
    let again = desk.money().card_withdraw(op(), "WD-1").await.unwrap();
    assert!(again.replayed);
    assert_eq!(sb.with_state(|s| s.orders.len()), 1);
    // A resolution needs a reason.
    let err = desk.journal().resolve_entry(e.id, true, " ").unwrap_err();
    assert!(matches!(&err, CoreError::Validation { field, .. } if field == "reason"));
    let done = desk
        .journal()
        .resolve_entry(e.id, true, "card history shows the 5.00 debit")
        .unwrap();
    assert_eq!(done.status, Status::Accepted);
    assert!(done.resolution.unwrap().contains("card history"));
    assert_eq!(audits(&desk, "journal_resolve").len(), 1);
    // Resolving a resolved entry is refused.
    assert!(
        desk.journal()
            .resolve_entry(e.id, false, "again please")
            .is_err()
    );

    // Another one that never arrived: the operator makes it sendable again.
    sb.set_fault(
        "/card/withdraw",
        Fault {
            error_rate: 1.0,
            ..Fault::default()
        },
    );
    let op2 = || V1CardWithdraw {
        amount: "6.00".parse().unwrap(),
        ..op()
    };
    assert!(desk.money().card_withdraw(op2(), "WD-2").await.is_err());
    sb.clear_faults();
    let e2 = desk.journal().entry_by_number("WD-2").unwrap().unwrap();
    assert_eq!(e2.status, Status::Unknown);
    desk.journal()
        .resolve_entry(e2.id, false, "no debit on the card after an hour")
        .unwrap();
    let sent = desk.money().card_withdraw(op2(), "WD-2").await.unwrap();
    assert_eq!(sent.entry.status, Status::Accepted);
    assert_eq!(sent.entry.attempts, 2, "the same reference, sent again");
    assert_eq!(sb.with_state(|s| s.orders.len()), 2);
}
