//! `ReversalStore`'s contract: a refund as the refund query gave it keeps its fee, its
//! settlement and (when the order query gives none) its state when the order query
//! reports it again; refunds and chargebacks read back as written, per order.

use paydesk_store::prelude::ReversalStore;
use paydesk_store::reversals::{ChargebackSeen, RefundSeen, Reversal};
use rust_decimal::Decimal;

use super::Facts;

fn d(text: &str) -> Option<Decimal> {
    Some(text.parse().unwrap())
}

fn refund<'a>(state: &'a str, fee: Option<Decimal>, settle: Option<i64>) -> RefundSeen<'a> {
    RefundSeen {
        trade_no: "T1",
        refund_no: "R1",
        state,
        amount: d("12.50"),
        currency: "MXN",
        fee,
        settle,
        receive_amount: d("12.20"),
    }
}

fn of_kind<'a>(all: &'a [Reversal], kind: &str) -> Vec<&'a Reversal> {
    all.iter().filter(|r| r.kind == kind).collect()
}

pub fn a_refund_keeps_what_the_refund_query_said_when_the_order_query_reports_it(
    r: &dyn ReversalStore,
    facts: Facts,
) {
    let n = facts.name;
    r.refund(refund("1", d("0.30"), Some(5))).unwrap();
    // The order query's record: no fee, no settlement, no state of the refund's own.
    r.refund_from_order_query(refund("", None, None)).unwrap();
    let all = r.list(Some("T1")).unwrap();
    let refunds = of_kind(&all, "refund");
    assert_eq!(refunds.len(), 1, "{n}: {all:?}");
    let f = refunds[0];
    assert_eq!(
        (f.refund_no.as_str(), f.state.as_str(), f.currency.as_str()),
        ("R1", "1", "MXN"),
        "{n}"
    );
    assert_eq!(f.amount.as_deref(), Some("12.50"), "{n}");
    assert_eq!(
        f.fee.as_deref(),
        Some("0.30"),
        "{n}: the refund query's fee stays"
    );
    assert_eq!(
        f.settle,
        Some(5),
        "{n}: the refund query's settlement stays"
    );
    // A state the order query does give replaces it.
    r.refund_from_order_query(refund("2", None, None)).unwrap();
    let all = r.list(Some("T1")).unwrap();
    assert_eq!(of_kind(&all, "refund")[0].state, "2", "{n}");

    r.chargeback(ChargebackSeen {
        trade_no: "T1",
        amount: d("5"),
        currency: "MXN",
        actual_amount: None,
        actual_currency: "",
        status: "open",
    })
    .unwrap();
    let all = r.list(Some("T1")).unwrap();
    let chargebacks = of_kind(&all, "chargeback");
    assert_eq!(chargebacks.len(), 1, "{n}: {all:?}");
    assert_eq!(
        (
            chargebacks[0].state.as_str(),
            chargebacks[0].amount.as_deref()
        ),
        ("open", Some("5")),
        "{n}"
    );
    assert!(r.list(Some("T2")).unwrap().is_empty(), "{n}");
    assert_eq!(r.list(None).unwrap().len(), 2, "{n}");
}
