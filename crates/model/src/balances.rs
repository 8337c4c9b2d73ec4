//! The balance history's rows (`balance_snapshots`).

use serde::{Deserialize, Serialize};

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BalanceSnapshot {
    pub currency: String,
    pub balance: String,
    pub un_checked_balance: String,
    pub total_balance: String,
    pub taken_at: i64,
}
