//! Balance snapshots: the table's trait, which each backend implements.

/// The table's types are the model's (`paydesk-model`: no I/O); kept at this path.
pub use paydesk_model::balances::*;

use crate::error::CoreResult;

/// Balance snapshots per currency.
pub trait BalanceStore {
    fn add(&self, s: &BalanceSnapshot) -> CoreResult<()>;

    /// Every snapshot of `currency`, oldest first.
    fn history(&self, currency: &str) -> CoreResult<Vec<BalanceSnapshot>>;

    /// The latest snapshot of each currency, by currency.
    fn latest(&self) -> CoreResult<Vec<BalanceSnapshot>>;
}
