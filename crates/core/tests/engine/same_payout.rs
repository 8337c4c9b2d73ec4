//! The same money to the same account is one payout, whatever optional members the book
//! fills (review-money-r5 F2b): a card payout by account without a country whose answer
//! was lost, then the same payee by nickname (the book gives the country), is held as a
//! possible duplicate; the operator confirms a second one, or another amount goes.
//! Against the sandbox on loopback, real keyring, real SQLite file.

#![allow(clippy::unwrap_used)]

use crate::common;

use paydesk_core::CoreError;
use paydesk_core::beneficiaries::NewBeneficiary;
use paydesk_core::forms::{PayoutForm, PayoutKind};
use paydesk_core::journal::Status;
use paydesk_core::new_mer_order_no;
use paydesk_sandbox::Fault;

const CARD: &str = "4111111111111111";

fn by_account(amount: &str) -> PayoutForm {
    PayoutForm {
        card_no: CARD.into(),
        first_name: "Ana".into(),
        last_name: "Lopez".into(),
        ..PayoutForm::new(PayoutKind::Card, &new_mer_order_no("PO"), amount, "MXN")
    }
}

fn by_nickname(amount: &str) -> PayoutForm {
    PayoutForm {
        beneficiary: "ana".into(),
        ..PayoutForm::new(PayoutKind::Card, &new_mer_order_no("PO"), amount, "MXN")
    }
}

fn orders_to_card(f: &common::Fixture) -> usize {
    f.running
        .sandbox
        .with_state(|s| s.orders.iter().filter(|o| o.mer_no == common::MER).count())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_payout_retried_by_nickname_after_a_lost_answer_is_held_as_a_duplicate() {
    let f = common::Fixture::new("samepayee").await;
    let mut m = f
        .running
        .sandbox
        .with_state(|s| s.merchants[&common::MER].clone());
    m.opening.insert("MXN".into(), "100000.00".parse().unwrap());
    f.running.sandbox.add_merchant(m);
    let desk = f.desk().await;

    // By account, no country: the gateway makes it, the answer is lost.
    f.running.sandbox.set_fault(
        "/payout",
        Fault {
            drop_rate: 1.0,
            ..Fault::default()
        },
    );
    let first = by_account("500.00");
    let r = desk.money().payout(&first).await.unwrap();
    assert_eq!(r.entry.status, Status::Unknown, "{r:?}");
    f.running.sandbox.clear_faults();
    let made = orders_to_card(&f);
    assert_eq!(made, 1, "the first one was made at the gateway");

    // The payee saved with its country, then paid by nickname: the same money to the
    // same account, held as a possible repeat of the unknown one; nothing leaves.
    desk.records()
        .add_beneficiary(&NewBeneficiary {
            nickname: "ana".into(),
            first_name: "Ana".into(),
            last_name: "Lopez".into(),
            account: CARD.into(),
            country: "MX".into(),
            kind: Some(PayoutKind::Card),
        })
        .unwrap();
    let retry = by_nickname("500");
    match desk.money().payout(&retry).await {
        Err(CoreError::Duplicate {
            earlier_mer_order_no,
            earlier_status,
            ..
        }) => {
            assert_eq!(earlier_mer_order_no, first.mer_order_no);
            assert_eq!(earlier_status, Status::Unknown.as_str());
        }
        other => panic!("not held as a duplicate: {other:?}"),
    }
    assert!(
        desk.journal()
            .entries(&[], 50)
            .unwrap()
            .iter()
            .all(|x| x.mer_order_no != retry.mer_order_no),
        "nothing journaled"
    );
    assert_eq!(orders_to_card(&f), made, "nothing sent");

    // Another amount to the same payee is another payout: it goes.
    desk.money().payout(&by_nickname("501.00")).await.unwrap();
    assert_eq!(orders_to_card(&f), made + 1);

    // A second one of the same money confirmed while the first is unknown: the first is
    // looked up before anything leaves (review r6 R6-5); found paid, the person is asked
    // again, now that it is known paid, and nothing is sent: the payee is not paid twice
    // by a confirmation given in the dark.
    desk.journal().allow_duplicate_once(&retry.mer_order_no);
    match desk.money().payout(&retry).await {
        Err(CoreError::Duplicate {
            earlier_mer_order_no,
            earlier_status,
            ..
        }) => {
            assert_eq!(earlier_mer_order_no, first.mer_order_no);
            assert_eq!(earlier_status, Status::Accepted.as_str());
        }
        other => panic!("sent beside an unknown payout: {other:?}"),
    }
    assert_eq!(orders_to_card(&f), made + 1, "nothing sent");
    // Confirmed again, knowing the first was paid: a deliberate second one goes.
    desk.journal().allow_duplicate_once(&retry.mer_order_no);
    let r = desk.money().payout(&retry).await.unwrap();
    assert_eq!(r.entry.status, Status::Accepted);
    assert_eq!(orders_to_card(&f), made + 2);
}

/// A second payout of the same money confirmed while the earlier one is unknown, and its
/// lookups cannot say (the gateway's list does not answer): refused, naming the earlier
/// order number, nothing sent; the earlier one stays to be looked up (review r6 R6-5).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirmed_second_payout_waits_while_the_earlier_one_stays_unknown() {
    let f = common::Fixture::new("dupunknown").await;
    let mut m = f
        .running
        .sandbox
        .with_state(|s| s.merchants[&common::MER].clone());
    m.opening.insert("MXN".into(), "100000.00".parse().unwrap());
    f.running.sandbox.add_merchant(m);
    let desk = f.desk().await;
    f.running.sandbox.set_fault(
        "/payout",
        Fault {
            drop_rate: 1.0,
            ..Fault::default()
        },
    );
    let first = by_account("300.00");
    assert_eq!(
        desk.money().payout(&first).await.unwrap().entry.status,
        Status::Unknown
    );
    f.running.sandbox.clear_faults();
    assert_eq!(
        orders_to_card(&f),
        1,
        "the first one was made at the gateway"
    );
    // Its lookups fail: the gateway's order list does not answer.
    f.running.sandbox.set_fault(
        "/v2/order/queryOrderList",
        Fault {
            error_rate: 1.0,
            ..Fault::default()
        },
    );
    let second = by_account("300.00");
    desk.journal().allow_duplicate_once(&second.mer_order_no);
    let e = desk.money().payout(&second).await.unwrap_err();
    let json = serde_json::to_value(&e).unwrap();
    assert_eq!(json["ruleKey"], "duplicateEarlierUnknown", "{e}");
    assert!(e.to_string().contains(&first.mer_order_no), "names it: {e}");
    assert_eq!(orders_to_card(&f), 1, "nothing sent");
    assert!(
        desk.journal()
            .entry_by_number(&second.mer_order_no)
            .unwrap()
            .is_none()
    );
    assert_eq!(
        desk.journal()
            .entry_by_number(&first.mer_order_no)
            .unwrap()
            .unwrap()
            .status,
        Status::Unknown
    );
}

/// The guard sees every unknown payout, however many payouts came after it (review r6
/// R6-2: it read only the thousand newest entries): an unknown card payout, then 1001
/// payouts paid to others, then the same payee by nickname: held, alone and in a file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_payout_behind_a_thousand_others_still_holds_its_repeat() {
    use paydesk_core::bulk::{RowAction, RowReason};
    use paydesk_core::journal::{Begin, Guard, Intent, Outcome};
    let f = common::Fixture::new("samemany").await;
    let mut m = f
        .running
        .sandbox
        .with_state(|s| s.merchants[&common::MER].clone());
    m.opening.insert("MXN".into(), "100000.00".parse().unwrap());
    f.running.sandbox.add_merchant(m);
    let desk = f.desk().await;
    f.running.sandbox.set_fault(
        "/payout",
        Fault {
            drop_rate: 1.0,
            ..Fault::default()
        },
    );
    let first = by_account("500.00");
    assert_eq!(
        desk.money().payout(&first).await.unwrap().entry.status,
        Status::Unknown
    );
    f.running.sandbox.clear_faults();
    let made = orders_to_card(&f);

    // 1001 payouts to others since, paid (written as the desk writes them: begun, then
    // accepted).
    let bodies: Vec<(String, serde_json::Value)> = (0..1001)
        .map(|i| {
            let no = format!("OTHER-{i}");
            let body = serde_json::json!({
                "merOrderNo": no, "currencyCode": "MXN", "sourceAmount": "7.00",
                "clabe": format!("0020100{i:011}"),
            });
            (no, body)
        })
        .collect();
    let intents: Vec<Intent<'_>> = bodies
        .iter()
        .map(|(no, body)| Intent {
            operation: "v2.payout",
            mer_order_no: no,
            request: body,
            summary: "payout to another",
            fingerprint: no,
            purpose: None,
        })
        .collect();
    {
        let journal = desk.store().journal();
        let guard = Guard {
            window_ms: 86_400_000,
            allow_duplicate: true,
        };
        let begun = journal.begin_many(&f.name, &intents, guard).unwrap();
        let claimed: Vec<_> = begun
            .into_iter()
            .map(|b| match b {
                Begin::Send(e, c) => (e.id, c),
                other => panic!("{other:?}"),
            })
            .collect();
        let paid = Outcome {
            status: Status::Accepted,
            trade_no: None,
            code: Some("0000"),
            message: None,
        };
        let outcomes: Vec<_> = claimed.iter().map(|(id, c)| (*id, c, paid)).collect();
        journal.finish_many(&outcomes).unwrap();
    }

    desk.records()
        .add_beneficiary(&NewBeneficiary {
            nickname: "ana".into(),
            first_name: "Ana".into(),
            last_name: "Lopez".into(),
            account: CARD.into(),
            country: "MX".into(),
            kind: Some(PayoutKind::Card),
        })
        .unwrap();
    let retry = by_nickname("500.00");
    match desk.money().payout(&retry).await {
        Err(CoreError::Duplicate {
            earlier_mer_order_no,
            ..
        }) => assert_eq!(earlier_mer_order_no, first.mer_order_no),
        other => panic!("not held: {other:?}"),
    }
    let file = desk
        .money()
        .bulk_parse(
            b"type,amount,currency,account,beneficiary,firstName,lastName,country\n\
              card,500.00,MXN,,ana,,,\n",
        )
        .unwrap();
    let plan = desk.money().bulk_plan(&file).unwrap();
    assert_eq!(plan.rows[0].action, RowAction::Held, "{:?}", plan.rows[0]);
    assert!(
        matches!(&plan.rows[0].why, RowReason::SameRecent { earlier, .. } if *earlier == first.mer_order_no),
        "{:?}",
        plan.rows[0].why
    );
    assert_eq!(orders_to_card(&f), made, "nothing sent");
}

/// Another card with the same first six and last four digits (the journal keeps only
/// those) is another account: not held.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_card_masked_alike_is_not_a_duplicate() {
    let f = common::Fixture::new("samemask").await;
    let mut m = f
        .running
        .sandbox
        .with_state(|s| s.merchants[&common::MER].clone());
    m.opening.insert("MXN".into(), "100000.00".parse().unwrap());
    f.running.sandbox.add_merchant(m);
    let desk = f.desk().await;
    desk.money().payout(&by_account("70.00")).await.unwrap();
    // 411111 ... 1111 again, other middle digits (Luhn-valid).
    let other = PayoutForm {
        card_no: "4111110000091111".into(),
        ..by_account("70.00")
    };
    desk.money().payout(&other).await.unwrap();
    assert_eq!(orders_to_card(&f), 2);
}

/// A second payout of the same money confirmed by the operator but refused before it was
/// sent (over the day's limit) leaves no confirmation behind: sent plainly later, it is
/// asked about again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirmed_duplicate_refused_before_sending_is_asked_about_again() {
    use paydesk_core::limits::{CurrencyLimit, Limits};
    let f = common::Fixture::new("duponce").await;
    let mut m = f
        .running
        .sandbox
        .with_state(|s| s.merchants[&common::MER].clone());
    m.opening.insert("MXN".into(), "100000.00".parse().unwrap());
    f.running.sandbox.add_merchant(m);
    let desk = f.desk().await;
    desk.money().payout(&by_account("60.00")).await.unwrap();
    let limit = |per_day: Option<&str>| Limits {
        currencies: vec![CurrencyLimit {
            currency: "MXN".into(),
            per_payout: None,
            per_day: per_day.map(str::to_string),
        }],
    };
    f.home.set_limits(&f.name, limit(Some("100"))).unwrap();
    let second = by_account("60.00");
    desk.journal().allow_duplicate_once(&second.mer_order_no);
    let e = desk.money().payout(&second).await.unwrap_err();
    assert!(e.to_string().contains("per day"), "{e}");
    f.home.set_limits(&f.name, limit(None)).unwrap();
    assert!(
        matches!(
            desk.money().payout(&second).await,
            Err(CoreError::Duplicate { .. })
        ),
        "sent without asking again"
    );
    assert_eq!(orders_to_card(&f), 1);
}

/// The same in a bulk file: a card payout by account without a country whose answer was
/// lost, then a file row paying the same payee by nickname the same amount, is held as a
/// repeat of it (not sent as new).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bulk_row_by_nickname_repeating_an_unknown_card_payout_is_held() {
    use paydesk_core::bulk::{RowAction, RowReason};
    let f = common::Fixture::new("samebulk").await;
    let mut m = f
        .running
        .sandbox
        .with_state(|s| s.merchants[&common::MER].clone());
    m.opening.insert("MXN".into(), "100000.00".parse().unwrap());
    f.running.sandbox.add_merchant(m);
    let desk = f.desk().await;
    f.running.sandbox.set_fault(
        "/payout",
        Fault {
            drop_rate: 1.0,
            ..Fault::default()
        },
    );
    let first = by_account("500.00");
    assert_eq!(
        desk.money().payout(&first).await.unwrap().entry.status,
        Status::Unknown
    );
    f.running.sandbox.clear_faults();
    desk.records()
        .add_beneficiary(&NewBeneficiary {
            nickname: "ana".into(),
            first_name: "Ana".into(),
            last_name: "Lopez".into(),
            account: CARD.into(),
            country: "MX".into(),
            kind: Some(PayoutKind::Card),
        })
        .unwrap();
    let file = desk
        .money()
        .bulk_parse(
            b"type,amount,currency,account,beneficiary,firstName,lastName,country\n\
              card,500.00,MXN,,ana,,,\n\
              card,501.00,MXN,,ana,,,\n",
        )
        .unwrap();
    assert!(file.errors.is_empty(), "{:?}", file.errors);
    let plan = desk.money().bulk_plan(&file).unwrap();
    assert_eq!(plan.rows[0].action, RowAction::Held, "{:?}", plan.rows[0]);
    assert!(
        matches!(&plan.rows[0].why, RowReason::SameRecent { earlier, .. } if *earlier == first.mer_order_no),
        "{:?}",
        plan.rows[0].why
    );
    assert_eq!(plan.rows[1].action, RowAction::Send, "another amount goes");
    desk.money()
        .bulk_payouts(&file, false, Some(&plan.digest), |_, _| {})
        .await
        .unwrap();
    assert_eq!(orders_to_card(&f), 2, "the first and the 501.00 row only");

    // Sending the held repeats too does not send it beside the unknown one (review r6
    // R6-5): held until that one is looked up or resolved, whatever is confirmed.
    let plan = desk.money().bulk_plan(&file).unwrap();
    let run = desk
        .money()
        .bulk_payouts(&file, true, Some(&plan.digest_with_held), |_, _| {})
        .await
        .unwrap();
    assert_eq!(orders_to_card(&f), 2, "nothing more sent: {run:?}");
    assert_eq!(plan.rows[0].action, RowAction::Held);
    assert!(plan.rows[0].why.is_firm(), "{:?}", plan.rows[0].why);
}

/// The same for a card top-up (money leaves for a card): a second one of the same top-up
/// confirmed while the first one's answer was lost: the first is looked up first; while
/// the gateway cannot say, nothing is sent; found made, the person is asked again
/// (review r6 R6-5).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirmed_second_card_top_up_waits_while_the_first_is_unknown() {
    use paydesk_core::forms::{CardForm, CardMove};
    let f = common::Fixture::new("duptopup").await;
    let desk = f.desk().await;
    let top_up = |reference: &str| CardForm {
        kind: CardMove::TopUp,
        card: "CARD-1".into(),
        reference: reference.into(),
        amount: "5".into(),
        currency: "USD".into(),
        sub_mer_no: String::new(),
        remark: String::new(),
        purpose: Default::default(),
    };
    f.running.sandbox.set_fault(
        "/v2/card/topUp",
        Fault {
            drop_rate: 1.0,
            ..Fault::default()
        },
    );
    let _ = desk.money().card(&top_up("TU-1")).await;
    f.running.sandbox.clear_faults();
    let first = desk.journal().entry_by_number("TU-1").unwrap().unwrap();
    assert_eq!(first.status, Status::Unknown, "{first:?}");
    // Its lookups fail: the gateway's order list does not answer.
    f.running.sandbox.set_fault(
        "/v2/order/queryOrderList",
        Fault {
            error_rate: 1.0,
            ..Fault::default()
        },
    );
    desk.journal().allow_duplicate_once("TU-2");
    let e = desk.money().card(&top_up("TU-2")).await.unwrap_err();
    let json = serde_json::to_value(&e).unwrap();
    assert_eq!(json["ruleKey"], "duplicateEarlierUnknown", "{e}");
    assert!(e.to_string().contains("TU-1"), "names it: {e}");
    // Nothing journaled: nothing sent (every move is journaled before it leaves).
    assert!(desk.journal().entry_by_number("TU-2").unwrap().is_none());
    assert_eq!(
        desk.journal()
            .entry_by_number("TU-1")
            .unwrap()
            .unwrap()
            .status,
        Status::Unknown
    );

    // The list answers again: found made, the person is asked again, as made; nothing
    // sent.
    f.running.sandbox.clear_faults();
    desk.journal().allow_duplicate_once("TU-2");
    match desk.money().card(&top_up("TU-2")).await {
        Err(CoreError::Duplicate { earlier_status, .. }) => {
            assert_eq!(earlier_status, Status::Accepted.as_str())
        }
        other => panic!("{other:?}"),
    }
    assert!(desk.journal().entry_by_number("TU-2").unwrap().is_none());
}
