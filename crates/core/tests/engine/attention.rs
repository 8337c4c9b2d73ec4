//! What needs a person (issue 33): a payout whose request never reached the gateway is
//! first an unknown outcome to look up, then, once lookups prove it absent, a payout to
//! send again under its own number; the person types the account again (the journal
//! keeps it masked) and only the entry's own account sends it. Against a sandbox on
//! loopback, with the real keyring and a real SQLite file.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;

use common::payout;
use paydesk_core::journal::Status;
use paydesk_core::profile::Safety;
use paydesk_core::{AttentionAction, CoreError};
use paydesk_sandbox::Fault;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payout_that_never_arrived_waits_for_a_person_and_goes_again_under_its_number() {
    let f = common::Fixture::new("attention").await;
    let mut p = f.home.get("attention").unwrap();
    p.safety = Safety {
        not_found_grace_secs: 1,
        not_found_lookups: 1,
        ..Safety::default()
    };
    f.home.put(p).unwrap();
    let sb = &f.running.sandbox;
    let mut desk = f.desk().await;
    let clock = Arc::new(paydesk_core::clock::ShiftedClock::default());
    desk.set_clock(clock.clone());
    assert!(desk.journal().needs_attention(100).unwrap().is_empty());

    // HTTP 503 before the gateway does anything: unknown to the desk, a lookup to make.
    sb.set_fault(
        "/v2/payout",
        Fault {
            error_rate: 1.0,
            ..Fault::default()
        },
    );
    assert!(
        desk.money()
            .payout_clabe(payout("AT-1", "20.00"))
            .await
            .is_err()
    );
    sb.clear_faults();
    let waiting = desk.journal().needs_attention(100).unwrap();
    assert_eq!(waiting.len(), 1);
    assert_eq!(waiting[0].entry.mer_order_no, "AT-1");
    assert_eq!(waiting[0].action, AttentionAction::LookUp);
    assert_eq!(waiting[0].account_field, None);

    // The grace passes and the lookup does not find it: proven not sent.
    clock.advance(std::time::Duration::from_millis(1_100));
    let e = desk
        .journal()
        .reconcile_entry(&waiting[0].entry, true)
        .await
        .unwrap();
    assert_eq!(e.status, Status::Pending);
    let waiting = desk.journal().needs_attention(100).unwrap();
    assert_eq!(waiting.len(), 1);
    assert_eq!(waiting[0].action, AttentionAction::SendAgain);
    assert_eq!(waiting[0].account_field.as_deref(), Some("clabe"));
    // The journal keeps the account masked: the person types it again.
    let kept = waiting[0].entry.request["clabe"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(kept, "002010077777777771");

    // Another account is not this payout: nothing leaves.
    let wrong = desk
        .journal()
        .resend_payout(e.id, "012180000000000008")
        .await;
    match wrong {
        Err(CoreError::Validation { field, rule }) => {
            assert_eq!(field, "clabe");
            assert!(rule.contains("AT-1"), "{rule}");
        }
        other => panic!("another account was not refused: {other:?}"),
    }
    assert_eq!(f.running.sandbox.orders_numbered(common::MER, "AT-1"), 0);
    assert!(matches!(
        desk.journal().resend_payout(e.id, " ").await,
        Err(CoreError::Validation { .. })
    ));

    // Its own account (typed with spaces) sends it under its own number, once.
    let sent = desk
        .journal()
        .resend_payout(e.id, "0020 1007 7777 7777 71")
        .await
        .unwrap();
    assert_eq!(sent.entry.status, Status::Accepted);
    assert_eq!(sent.entry.mer_order_no, "AT-1");
    assert_eq!(sent.entry.id, e.id);
    assert_eq!(sent.entry.attempts, 2);
    assert_eq!(f.running.sandbox.orders_numbered(common::MER, "AT-1"), 1);
    assert!(desk.journal().needs_attention(100).unwrap().is_empty());
    // The order it made was read again from the gateway's list at once.
    let made = desk
        .orders()
        .cached_order(sent.entry.trade_no.as_deref().unwrap())
        .unwrap()
        .unwrap();
    assert!(
        made.synced_at.is_some(),
        "the made order was not read again"
    );

    // Accepted: never sent again from here.
    assert!(matches!(
        desk.journal()
            .resend_payout(e.id, "002010077777777771")
            .await,
        Err(CoreError::Validation { .. })
    ));
    assert_eq!(f.running.sandbox.orders_numbered(common::MER, "AT-1"), 1);
}

/// A payout journaled but never sent (proven absent, or left `pending` by a run killed
/// between writing its rows and sending them) leaves now when it is sent again: the
/// profile's limits (as kept now) and the balance are asked as for a new payout, and a
/// refusal leaves it "not sent", naming the rule (review-money-r5 F3).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payout_sent_again_is_checked_against_the_limits_and_the_balance_of_now() {
    use paydesk_core::limits::{CurrencyLimit, Limits};
    let f = common::Fixture::new("attnlimit").await;
    let mut p = f.home.get("attnlimit").unwrap();
    p.safety = Safety {
        not_found_grace_secs: 1,
        not_found_lookups: 1,
        ..Safety::default()
    };
    f.home.put(p).unwrap();
    let sb = &f.running.sandbox;
    let mut desk = f.desk().await;
    let clock = Arc::new(paydesk_core::clock::ShiftedClock::default());
    desk.set_clock(clock.clone());
    sb.set_fault(
        "/v2/payout",
        Fault {
            error_rate: 1.0,
            ..Fault::default()
        },
    );
    assert!(
        desk.money()
            .payout_clabe(payout("AL-1", "50.00"))
            .await
            .is_err()
    );
    sb.clear_faults();
    clock.advance(std::time::Duration::from_millis(1_100));
    let waiting = desk.journal().needs_attention(100).unwrap();
    let e = desk
        .journal()
        .reconcile_entry(&waiting[0].entry, true)
        .await
        .unwrap();
    assert_eq!(e.status, Status::Pending);

    let rule_key = |e: &CoreError| {
        serde_json::to_value(e).unwrap()["ruleKey"]
            .as_str()
            .map(str::to_string)
    };
    let still_not_sent = |desk: &paydesk_core::Desk| {
        let now = desk.journal().entry(e.id).unwrap();
        assert_eq!(now.status, Status::Pending);
        assert_eq!(f.running.sandbox.orders_numbered(common::MER, "AL-1"), 0);
    };
    // The day's limit lowered meanwhile (elsewhere: the home, not this desk) below it.
    let limit = |per_day: Option<&str>| Limits {
        currencies: vec![CurrencyLimit {
            currency: "MXN".into(),
            per_payout: None,
            per_day: per_day.map(str::to_string),
        }],
    };
    f.home.set_limits(&f.name, limit(Some("40.00"))).unwrap();
    let err = desk
        .journal()
        .resend_payout(e.id, "002010077777777771")
        .await
        .unwrap_err();
    assert_eq!(rule_key(&err).as_deref(), Some("limitPerDay"), "{err}");
    assert!(err.to_string().contains("40"), "names the limit: {err}");
    still_not_sent(&desk);

    // No limit, but the balance is short of it now.
    f.home.set_limits(&f.name, Limits::default()).unwrap();
    let mut m = sb.with_state(|s| s.merchants[&common::MER].clone());
    m.opening.insert("MXN".into(), "10.00".parse().unwrap());
    sb.add_merchant(m.clone());
    let err = desk
        .journal()
        .resend_payout(e.id, "002010077777777771")
        .await
        .unwrap_err();
    assert_eq!(rule_key(&err).as_deref(), Some("balanceShort"), "{err}");
    still_not_sent(&desk);

    // Within both, it goes, once.
    m.opening.insert("MXN".into(), "1000.00".parse().unwrap());
    sb.add_merchant(m);
    let sent = desk
        .journal()
        .resend_payout(e.id, "002010077777777771")
        .await
        .unwrap();
    assert_eq!(sent.entry.status, Status::Accepted);
    assert_eq!(f.running.sandbox.orders_numbered(common::MER, "AL-1"), 1);
}

/// A file row the journal holds as not sent (an earlier run wrote it, then stopped),
/// held firm by this run's plan (over the day's limit): not sent, and the result names
/// its number, so it is found on the Attention list (review-money-r5 F3).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_held_firm_that_the_journal_holds_as_not_sent_keeps_its_number_in_the_result() {
    use paydesk_core::bulk::{self, RowStatus};
    use paydesk_core::limits::{CurrencyLimit, Limits};
    let f = common::Fixture::new("attnbulk").await;
    let mut p = f.home.get("attnbulk").unwrap();
    p.safety = Safety {
        not_found_grace_secs: 1,
        not_found_lookups: 1,
        ..Safety::default()
    };
    f.home.put(p).unwrap();
    let sb = &f.running.sandbox;
    let mut desk = f.desk().await;
    let clock = Arc::new(paydesk_core::clock::ShiftedClock::default());
    desk.set_clock(clock.clone());
    sb.set_fault(
        "/v2/payout",
        Fault {
            error_rate: 1.0,
            ..Fault::default()
        },
    );
    assert!(
        desk.money()
            .payout_clabe(payout("AB-1", "50.00"))
            .await
            .is_err()
    );
    sb.clear_faults();
    clock.advance(std::time::Duration::from_millis(1_100));
    let waiting = desk.journal().needs_attention(100).unwrap();
    let e = desk
        .journal()
        .reconcile_entry(&waiting[0].entry, true)
        .await
        .unwrap();
    assert_eq!(e.status, Status::Pending);

    f.home
        .set_limits(
            &f.name,
            Limits {
                currencies: vec![CurrencyLimit {
                    currency: "MXN".into(),
                    per_payout: None,
                    per_day: Some("40.00".into()),
                }],
            },
        )
        .unwrap();
    let path = f.dir.path().join("payroll.csv");
    std::fs::write(
        &path,
        "type,amount,currency,account,firstName,lastName,country,merOrderNo\n\
         clabe,50.00,MXN,002010077777777771,Ana,Lima,,AB-1\n",
    )
    .unwrap();
    let ctx = bulk::BulkContext {
        mer_no: common::MER,
        notify_url: "https://desk.example/n".into(),
        ip_address: "203.0.113.7".into(),
    };
    let file = bulk::read(&path, &ctx).unwrap();
    let plan = desk.money().bulk_plan(&file).unwrap();
    assert!(
        matches!(plan.rows[0].why, bulk::RowReason::OverLimit { .. }),
        "{:?}",
        plan.rows[0]
    );
    let results = desk
        .money()
        .bulk_payouts(&file, false, Some(&plan.digest), |_, _| {})
        .await
        .unwrap();
    assert_eq!(results[0].status, RowStatus::Held);
    assert_eq!(results[0].mer_order_no, "AB-1");
    assert_eq!(sb.orders_numbered(common::MER, "AB-1"), 0);
    assert_eq!(desk.journal().entry(e.id).unwrap().status, Status::Pending);
}
