//! What a crate that extends the desk (the reports of `paydesk-reports`) reads of it: its
//! store and its clock (its audit log through `desk.journal().audit_operation`). The
//! desk's other state stays its own.

use std::sync::Arc;

use super::Desk;
use crate::store::Store;

impl Desk {
    /// The desk's store (its tables; never a connection).
    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// Now, by the desk's clock (UTC millis): what a decision that depends on time reads.
    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }
}
