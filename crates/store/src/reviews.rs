//! Review submissions: the table's trait, which each backend implements.

/// The table's types are the model's (`paydesk-model`: no I/O); kept at this path.
pub use paydesk_model::reviews::*;

use crate::error::CoreResult;

/// Review submissions and their outcomes.
pub trait ReviewStore {
    /// Records how a submission ended: its row updated if the reference has one, else
    /// a new row.
    fn record(&self, o: Outcome<'_>) -> CoreResult<()>;

    /// The request kept for a resend under `reference`, if any.
    fn request(&self, reference: &str) -> CoreResult<Option<String>>;

    /// The latest 1,000, newest first; `trade_no` narrows to one order.
    fn latest(&self, trade_no: Option<&str>) -> CoreResult<Vec<ReviewSubmission>>;

    /// How many submissions have no final answer yet.
    fn pending_count(&self) -> CoreResult<i64>;
}

/// A row's evidence column read back; a row an older desk wrote has none (`[]`).
pub fn evidence_of(json: &str) -> Vec<FileEvidence> {
    serde_json::from_str(json).unwrap_or_default()
}
