//! Card operations: the table's trait, which each backend implements.

/// The table's types are the model's (`paydesk-model`: no I/O); kept at this path.
pub use paydesk_model::cards::*;

use crate::error::CoreResult;

/// Card top-ups and withdrawals made here.
pub trait CardStore {
    fn add(&self, op: NewCardOperation<'_>) -> CoreResult<()>;

    /// The latest 1,000, newest first.
    fn latest(&self) -> CoreResult<Vec<CardOperation>>;
}
