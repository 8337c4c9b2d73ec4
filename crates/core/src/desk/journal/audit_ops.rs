//! The journal service's part of what `desk/extension.rs` held.

use std::time::Instant;

impl<'d> crate::desk::Journal<'d> {
    /// Appends an operation that started at `started` to the audit log, with its result
    /// (what every operation of the desk does; a failure to append is logged, as there).
    pub fn audit_operation(
        &self,
        operation: &str,
        identifiers: String,
        result: &str,
        started: Instant,
    ) {
        self.desk.audit(operation, identifiers, result, started);
    }
}
