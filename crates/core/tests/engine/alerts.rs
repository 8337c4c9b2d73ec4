//! Alerts that find the user (issue 35 item 4): each kind raised from what the desk's
//! store holds, with the profile's thresholds, against a sandbox on loopback, a real
//! SQLite file and the real keyring; the marks (notified once, read, dismissed, back
//! when the condition comes back) and the quiet hours with a clock moved by hand.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::payout;
use paydesk_core::alerts::{AlertKind, AlertSettings, AlertTarget, QuietHours};
use paydesk_core::clock::ShiftedClock;
use paydesk_core::store::reversals::ChargebackSeen;
use paydesk_sandbox::Fault;

fn kinds(list: &[paydesk_core::alerts::Alert]) -> Vec<AlertKind> {
    list.iter().map(|a| a.kind).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_outcome_alerts_after_its_time_is_notified_once_and_can_be_read_and_dismissed() {
    let f = common::Fixture::new("alerts-unknown").await;
    let mut desk = f.desk().await;
    let clock = Arc::new(ShiftedClock::default());
    desk.set_clock(clock.clone());
    f.home
        .set_alert_settings(
            "alerts-unknown",
            AlertSettings {
                unknown_after_minutes: 30,
                ..AlertSettings::default()
            },
        )
        .unwrap();
    assert!(f.home.alerts(&desk).unwrap().is_empty());

    // A 503 before the gateway does anything: the outcome is unknown to the desk.
    f.running.sandbox.set_fault(
        "/v2/payout",
        Fault {
            error_rate: 1.0,
            ..Fault::default()
        },
    );
    assert!(
        desk.money()
            .payout_clabe(payout("AL-1", "20.00"))
            .await
            .is_err()
    );
    f.running.sandbox.clear_faults();
    // Not yet: 29 minutes is under the threshold.
    clock.advance(Duration::from_secs(29 * 60));
    assert!(f.home.alerts(&desk).unwrap().is_empty());
    clock.advance(Duration::from_secs(2 * 60));
    let list = f.home.alerts(&desk).unwrap();
    assert_eq!(kinds(&list), [AlertKind::OutcomeUnknown]);
    let a = &list[0];
    let entry = desk.journal().entry_by_number("AL-1").unwrap().unwrap();
    assert_eq!(
        a.target,
        AlertTarget::Entry {
            id: entry.id,
            trade_no: None
        }
    );
    assert!(a.text.contains("AL-1"), "{}", a.text);
    assert_eq!(a.params["minutes"], "31");
    assert!(!a.read && !a.notified);

    // Notified once: the second round hands out nothing.
    let sent = f.home.alerts_to_notify(&desk).unwrap();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].key, a.key);
    assert!(f.home.alerts_to_notify(&desk).unwrap().is_empty());
    assert!(f.home.alerts(&desk).unwrap()[0].notified);

    // Read: still listed, marked; dismissed: gone while the condition holds.
    f.home
        .mark_alerts("alerts-unknown", std::slice::from_ref(&a.key), false, 1)
        .unwrap();
    assert!(f.home.alerts(&desk).unwrap()[0].read);
    f.home
        .mark_alerts("alerts-unknown", std::slice::from_ref(&a.key), true, 1)
        .unwrap();
    assert!(f.home.alerts(&desk).unwrap().is_empty());
    // The marks are kept in the home: a desk opened again sees the same.
    let mut again = f.desk().await;
    again.set_clock(clock.clone());
    assert!(f.home.alerts(&again).unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_balance_under_its_threshold_alerts_and_comes_back_when_it_falls_again() {
    let f = common::Fixture::new("alerts-balance").await;
    let desk = f.desk().await;
    let read = desk.money().balance("MXN").await.unwrap();
    let balance: rust_decimal::Decimal = read.balance.parse().unwrap();
    let set = |threshold: rust_decimal::Decimal| {
        let mut s = AlertSettings::default();
        s.low_balance.insert("MXN".into(), threshold.to_string());
        f.home.set_alert_settings("alerts-balance", s).unwrap();
    };
    // At the balance exactly: not under.
    set(balance);
    assert!(f.home.alerts(&desk).unwrap().is_empty());
    set(balance + rust_decimal::Decimal::ONE);
    let list = f.home.alerts(&desk).unwrap();
    assert_eq!(kinds(&list), [AlertKind::BalanceLow]);
    assert_eq!(
        list[0].target,
        AlertTarget::Balances {
            currency: "MXN".into()
        }
    );
    assert_eq!(list[0].params["balance"], balance.to_string());
    assert_eq!(f.home.alerts_to_notify(&desk).unwrap().len(), 1);
    f.home
        .mark_alerts("alerts-balance", &[list[0].key.clone()], true, 1)
        .unwrap();
    assert!(f.home.alerts(&desk).unwrap().is_empty());

    // The condition ends (threshold lowered), then comes back: a new alert, unread,
    // notified again.
    set(rust_decimal::Decimal::ONE);
    assert!(f.home.alerts(&desk).unwrap().is_empty());
    set(balance + rust_decimal::Decimal::TEN);
    let back = f.home.alerts(&desk).unwrap();
    assert_eq!(kinds(&back), [AlertKind::BalanceLow]);
    assert!(!back[0].read && !back[0].notified);
    assert_eq!(f.home.alerts_to_notify(&desk).unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_a_chargeback_and_the_sync_alert() {
    let f = common::Fixture::new("alerts-events").await;
    let mut desk = f.desk().await;
    let clock = Arc::new(ShiftedClock::default());
    desk.set_clock(clock.clone());
    // The gateway refuses a payout beyond the balance.
    assert!(
        desk.money()
            .payout_clabe(payout("AL-NO", "999999999.00"))
            .await
            .is_err()
    );
    let refused = desk.journal().entry_by_number("AL-NO").unwrap().unwrap();
    assert_eq!(refused.status, paydesk_core::journal::Status::Rejected);
    // A chargeback as the V2 order query keeps it.
    desk.store()
        .reversals()
        .chargeback(ChargebackSeen {
            trade_no: "T-CB-1",
            amount: Some("15.50".parse().unwrap()),
            currency: "MXN",
            actual_amount: None,
            actual_currency: "",
            status: "1",
        })
        .unwrap();
    // A sync that failed.
    desk.store()
        .sync_state()
        .record_error("alerts-events", "connection refused")
        .unwrap();
    let list = f.home.alerts(&desk).unwrap();
    let mut got = kinds(&list);
    got.sort();
    assert_eq!(
        got,
        [
            AlertKind::Chargeback,
            AlertKind::Refused,
            AlertKind::SyncFailed
        ]
    );
    let of = |k: AlertKind| list.iter().find(|a| a.kind == k).unwrap();
    assert_eq!(
        of(AlertKind::Refused).target,
        AlertTarget::Entry {
            id: refused.id,
            trade_no: refused.trade_no.clone()
        }
    );
    assert_eq!(
        of(AlertKind::Chargeback).target,
        AlertTarget::Order {
            trade_no: "T-CB-1".into()
        }
    );
    assert_eq!(of(AlertKind::Chargeback).params["amount"], "15.50");
    assert_eq!(of(AlertKind::SyncFailed).target, AlertTarget::Sync);

    // The sync succeeds later: no failure; then nothing runs for the set time: stale.
    desk.store()
        .sync_state()
        .clear_error("alerts-events")
        .unwrap();
    let now = desk.now_ms();
    desk.store()
        .sync_state()
        .page_done(
            "alerts-events",
            paydesk_core::store::sync_state::PageDone {
                window_start: now - 60_000,
                window_end: now,
                page_num: 1,
                total_pages: 1,
                clean: true,
            },
        )
        .unwrap();
    let s = AlertSettings {
        sync_stale_hours: 2,
        recent_days: 1,
        ..AlertSettings::default()
    };
    f.home.set_alert_settings("alerts-events", s).unwrap();
    assert!(
        !kinds(&f.home.alerts(&desk).unwrap()).contains(&AlertKind::SyncStale),
        "a sync just now is not stale"
    );
    clock.advance(Duration::from_secs(2 * 3600 + 60));
    let later = kinds(&f.home.alerts(&desk).unwrap());
    assert!(later.contains(&AlertKind::SyncStale), "{later:?}");
    assert!(!later.contains(&AlertKind::SyncFailed), "{later:?}");
    // A day later the refusal and the chargeback are no longer recent (1 day).
    clock.advance(Duration::from_secs(24 * 3600));
    let day_after = kinds(&f.home.alerts(&desk).unwrap());
    assert_eq!(day_after, [AlertKind::SyncStale]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_system_notification_in_the_quiet_hours_the_inbox_fills_and_they_come_after() {
    let f = common::Fixture::new("alerts-quiet").await;
    let mut desk = f.desk().await;
    let clock = Arc::new(ShiftedClock::default());
    desk.set_clock(clock.clone());
    // Quiet from the minute before now to two hours later, in the profile's business
    // zone (UTC here; the zone rule itself is the unit test's).
    let zone = desk.orders().reporting().zone();
    let now = desk.now_ms();
    let hm = |ms: i64| zone.format(ms, "%H:%M");
    let mut s = AlertSettings {
        quiet_hours: Some(QuietHours {
            from: hm(now - 60_000),
            to: hm(now + 2 * 3600 * 1000),
        }),
        ..AlertSettings::default()
    };
    s.low_balance.insert("MXN".into(), "1000000000".into());
    f.home.set_alert_settings("alerts-quiet", s).unwrap();
    desk.money().balance("MXN").await.unwrap();

    assert_eq!(
        kinds(&f.home.alerts(&desk).unwrap()),
        [AlertKind::BalanceLow]
    );
    assert!(f.home.alerts_to_notify(&desk).unwrap().is_empty());
    assert!(!f.home.alerts(&desk).unwrap()[0].notified);
    // The quiet hours end: the alert still unread is notified then, once.
    clock.advance(Duration::from_secs(2 * 3600 + 120));
    assert_eq!(f.home.alerts_to_notify(&desk).unwrap().len(), 1);
    assert!(f.home.alerts_to_notify(&desk).unwrap().is_empty());

    // The system's notifications off: the inbox only.
    let mut off = f.home.alert_settings("alerts-quiet").unwrap();
    off.system_notifications = false;
    off.quiet_hours = None;
    off.low_balance.insert("MXN".into(), "1".into());
    f.home
        .set_alert_settings("alerts-quiet", off.clone())
        .unwrap();
    assert!(f.home.alerts(&desk).unwrap().is_empty());
    off.low_balance.insert("MXN".into(), "1000000000".into());
    f.home.set_alert_settings("alerts-quiet", off).unwrap();
    assert_eq!(f.home.alerts(&desk).unwrap().len(), 1);
    assert!(f.home.alerts_to_notify(&desk).unwrap().is_empty());
}

/// A payout the gateway accepted and its order list shows failed later (read by a sync)
/// is alerted as a refusal is, opening its journal entry; not before the sync saw it, and
/// not once it is no longer recent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payout_found_failed_by_a_sync_after_it_was_accepted_alerts_like_a_refusal() {
    use paydesk_core::sync::SyncOptions;
    let f = common::Fixture::new("alerts-failed").await;
    let mut desk = f.desk().await;
    let clock = Arc::new(ShiftedClock::default());
    desk.set_clock(clock.clone());
    f.home
        .set_alert_settings(
            "alerts-failed",
            AlertSettings {
                recent_days: 1,
                ..AlertSettings::default()
            },
        )
        .unwrap();
    let paid = desk
        .money()
        .payout_clabe(payout("AL-FAIL", "20.00"))
        .await
        .unwrap();
    assert_eq!(paid.entry.status, paydesk_core::journal::Status::Accepted);
    let mut all = SyncOptions::last_days(2);
    all.to = chrono::Utc::now() + chrono::Duration::days(1);
    desk.orders()
        .sync(&all, Arc::default(), |_| {})
        .await
        .unwrap();
    assert!(
        !kinds(&f.home.alerts(&desk).unwrap()).contains(&AlertKind::Refused),
        "accepted and not failed: no alert"
    );

    // The gateway fails it later; the desk knows once a sync reads its list.
    assert!(f.running.sandbox.alter_order(common::MER, "AL-FAIL", |o| {
        o.state = 3;
        o.refusal_reason = "beneficiary account closed".into();
    }));
    assert!(!kinds(&f.home.alerts(&desk).unwrap()).contains(&AlertKind::Refused));
    desk.orders()
        .sync(&all, Arc::default(), |_| {})
        .await
        .unwrap();
    let list = f.home.alerts(&desk).unwrap();
    let failed: Vec<_> = list
        .iter()
        .filter(|a| a.kind == AlertKind::Refused)
        .collect();
    assert_eq!(failed.len(), 1, "{list:?}");
    let a = failed[0];
    assert_eq!(
        a.target,
        AlertTarget::Entry {
            id: paid.entry.id,
            trade_no: paid.entry.trade_no.clone()
        }
    );
    assert_eq!(a.params["number"], "AL-FAIL");
    assert!(
        a.params["why"].contains("beneficiary account closed"),
        "{}",
        a.params["why"]
    );
    assert_eq!(f.home.alerts_to_notify(&desk).unwrap().len(), 1);

    // Two days later it is no longer recent.
    clock.advance(Duration::from_secs(2 * 24 * 3600));
    assert!(!kinds(&f.home.alerts(&desk).unwrap()).contains(&AlertKind::Refused));
}
