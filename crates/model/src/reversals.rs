//! Refunds and chargebacks as the gateway's queries gave them (`refunds`, `chargebacks`).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// A refund or chargeback as the Refunds screen lists it; `state` is raw (the V1 refund
/// `state`, or the V2 query `status` of a chargeback).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reversal {
    pub kind: String,
    pub trade_no: String,
    pub refund_no: String,
    pub state: String,
    pub amount: Option<String>,
    pub currency: String,
    pub fee: Option<String>,
    pub settle: Option<i64>,
    pub fetched_at: i64,
}

/// A refund as an answer gave it (fields the answer did not carry are `None` and keep
/// what was cached).
#[derive(Debug, Clone, Copy)]
pub struct RefundSeen<'a> {
    pub trade_no: &'a str,
    pub refund_no: &'a str,
    pub state: &'a str,
    pub amount: Option<Decimal>,
    pub currency: &'a str,
    pub fee: Option<Decimal>,
    pub settle: Option<i64>,
    pub receive_amount: Option<Decimal>,
}

/// A chargeback as the V2 order query gave it.
#[derive(Debug, Clone, Copy)]
pub struct ChargebackSeen<'a> {
    pub trade_no: &'a str,
    pub amount: Option<Decimal>,
    pub currency: &'a str,
    pub actual_amount: Option<Decimal>,
    pub actual_currency: &'a str,
    pub status: &'a str,
}
