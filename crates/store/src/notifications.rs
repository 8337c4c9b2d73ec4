//! Notifications received: the table's trait, which each backend implements.

/// The table's types are the model's (`paydesk-model`: no I/O); kept at this path.
pub use paydesk_model::notifications::*;

use crate::error::CoreResult;

/// Notifications received from the gateway.
pub trait NotificationStore {
    /// Keeps a notification received now.
    fn add(&self, kind: &str, trade_no: &str, body: &str, signature_ok: bool) -> CoreResult<()>;

    /// The latest `limit`, newest first.
    fn latest(&self, limit: i64) -> CoreResult<Vec<Stored>>;

    /// Those about one order, oldest first.
    fn of_order(&self, trade_no: &str) -> CoreResult<Vec<Stored>>;
}
