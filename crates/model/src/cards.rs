//! Card top-ups and withdrawals made from the desk (`card_operations`).

use serde::{Deserialize, Serialize};

/// A card top-up or withdraw made from this desk.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CardOperation {
    /// `top_up` or `withdraw`.
    pub kind: String,
    pub card: String,
    pub amount: String,
    pub currency: String,
    /// The gateway's fee on a withdrawal.
    pub fee: Option<String>,
    pub trade_no: Option<String>,
    /// The journal status it ended in.
    pub outcome: String,
    pub at: i64,
    pub journal_id: Option<i64>,
}

/// A card operation to record (now).
#[derive(Debug, Clone, Copy)]
pub struct NewCardOperation<'a> {
    pub journal_id: i64,
    pub kind: &'a str,
    pub card: &'a str,
    pub amount: &'a str,
    pub currency: &'a str,
    pub fee: Option<&'a str>,
    pub trade_no: Option<&'a str>,
    pub outcome: &'a str,
}
