//! A payin that never reached the gateway, sent again under its own number (issue 33):
//! the journal does not keep the method (it travels in a header), so the desk finds the
//! method whose request has the entry's own fingerprint; a PIX payer's CPF is typed
//! again, and another CPF sends nothing. Against a sandbox on loopback, with the real
//! keyring and a real SQLite file.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;

use paydesk_core::forms::{PayinForm, PayinMethod};
use paydesk_core::journal::Status;
use paydesk_core::profile::Safety;
use paydesk_core::{AttentionAction, CoreError, Desk};
use paydesk_sandbox::Fault;

/// Sends `form` while the gateway fails, then lets the lookup prove it absent: the
/// entry's id, now "not sent".
async fn not_sent(
    f: &common::Fixture,
    desk: &Desk,
    clock: &paydesk_core::clock::ShiftedClock,
    form: &PayinForm,
) -> i64 {
    let sb = &f.running.sandbox;
    sb.set_fault(
        "/payment",
        Fault {
            error_rate: 1.0,
            ..Fault::default()
        },
    );
    // An answer of the gateway's failure: the desk does not know the outcome yet.
    let first = desk.money().payin(form).await;
    assert!(
        first
            .as_ref()
            .map_or(true, |r| r.entry.status != Status::Accepted),
        "{first:?}"
    );
    sb.clear_faults();
    let waiting = desk.journal().needs_attention(100).unwrap();
    let entry = waiting
        .iter()
        .find(|a| a.entry.mer_order_no == form.mer_order_no)
        .unwrap()
        .entry
        .clone();
    clock.advance(std::time::Duration::from_millis(1_100));
    let e = desk.journal().reconcile_entry(&entry, true).await.unwrap();
    assert_eq!(e.status, Status::Pending, "{e:?}");
    let waiting = desk.journal().needs_attention(100).unwrap();
    let item = waiting.iter().find(|a| a.entry.id == e.id).unwrap();
    assert_eq!(item.action, AttentionAction::SendAgain);
    assert_eq!(sb.orders_numbered(common::MER, &form.mer_order_no), 0);
    e.id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payin_never_sent_goes_again_under_its_number_with_its_own_method() {
    let f = common::Fixture::new("repayin").await;
    let mut p = f.home.get("repayin").unwrap();
    p.safety = Safety {
        not_found_grace_secs: 1,
        not_found_lookups: 1,
        ..Safety::default()
    };
    f.home.put(p).unwrap();
    let mut desk = f.desk().await;
    let clock = Arc::new(paydesk_core::clock::ShiftedClock::default());
    desk.set_clock(clock.clone());
    let sb = f.running.sandbox.clone();

    // SEPA: nothing masked; the method is found by the entry's fingerprint.
    let mut sepa = PayinForm::new(PayinMethod::Sepa, "RP-SEPA-1", "30.00", "EUR");
    sepa.first_name = "Ana".into();
    sepa.last_name = "Lima".into();
    sepa.email = "ana.lima@example.com".into();
    let id = not_sent(&f, &desk, &clock, &sepa).await;
    let sent = desk.journal().resend_payin(id, None).await.unwrap();
    assert_eq!(sent.entry.status, Status::Accepted, "{sent:?}");
    assert_eq!(sent.entry.id, id);
    assert_eq!(sent.entry.mer_order_no, "RP-SEPA-1");
    assert_eq!(sent.entry.attempts, 2);
    assert_eq!(sb.orders_numbered(common::MER, "RP-SEPA-1"), 1);
    // Accepted: never again.
    assert!(matches!(
        desk.journal().resend_payin(id, None).await,
        Err(CoreError::Validation { .. })
    ));
    assert_eq!(sb.orders_numbered(common::MER, "RP-SEPA-1"), 1);

    // PIX: the CPF is kept masked; without it or with another, nothing leaves.
    let mut pix = PayinForm::new(PayinMethod::Pix, "RP-PIX-1", "20.00", "BRL");
    pix.name = "Ana Lima".into();
    pix.social_security_number = "12345678909".into();
    let id = not_sent(&f, &desk, &clock, &pix).await;
    let kept = desk.journal().entry(id).unwrap().request["socialSecurityNumber"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(kept, "12345678909", "the journal keeps the CPF masked");
    match desk.journal().resend_payin(id, None).await {
        Err(CoreError::Validation { field, .. }) => assert_eq!(field, "socialSecurityNumber"),
        other => panic!("a resend without the CPF was not refused: {other:?}"),
    }
    match desk
        .journal()
        .resend_payin(id, Some("987.654.321-00"))
        .await
    {
        Err(CoreError::Validation { field, rule }) => {
            assert_eq!(field, "socialSecurityNumber");
            assert!(rule.contains("RP-PIX-1"), "{rule}");
        }
        other => panic!("another CPF was not refused: {other:?}"),
    }
    assert_eq!(sb.orders_numbered(common::MER, "RP-PIX-1"), 0);
    let sent = desk
        .journal()
        .resend_payin(id, Some("123.456.789-09"))
        .await
        .unwrap();
    assert_eq!(sent.entry.status, Status::Accepted, "{sent:?}");
    assert_eq!(sent.entry.mer_order_no, "RP-PIX-1");
    assert_eq!(sb.orders_numbered(common::MER, "RP-PIX-1"), 1);

    assert!(desk.journal().needs_attention(100).unwrap().is_empty());
}
