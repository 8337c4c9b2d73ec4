//! The audit log as the journal service reads and writes it: its check (with the
//! keyring's anchor and alert), its rows, its CSV export, and an operation appended by a
//! crate that extends the desk.

use crate::audit::{self};
use std::time::Instant;

use crate::error::CoreResult;

impl<'d> crate::desk::Journal<'d> {
    pub fn audit_verify(&self) -> CoreResult<audit::ChainCheck> {
        let anchor = self.desk.secrets.audit_anchor(&self.desk.profile.name)?;
        let alert = self.desk.secrets.audit_alert(&self.desk.profile.name)?;
        self.desk.store.audit().verify_with_alert(
            self.desk.audit_key.expose(),
            anchor.as_ref(),
            alert,
        )
    }

    pub fn audit_list(&self, f: &audit::AuditFilter) -> CoreResult<Vec<audit::AuditEntry>> {
        self.desk.store.audit().list(f)
    }

    /// Writes the audit log (filtered) to a CSV file (an existing file is replaced only
    /// with [`crate::output::Existing::Replace`]); returns the number of rows.
    pub fn export_audit(
        &self,
        f: &audit::AuditFilter,
        path: &std::path::Path,
        existing: crate::output::Existing,
    ) -> CoreResult<usize> {
        let mut out = crate::output::create(path, existing)?;
        let rows = self.desk.store.audit().list(&audit::AuditFilter {
            limit: Some(f.limit.unwrap_or(i64::MAX)),
            ..f.clone()
        })?;
        let io = |e: &dyn std::fmt::Display| crate::output::write_error(path, e);
        let mut w = csv::Writer::from_writer(out.file());
        w.write_record([
            "id",
            "at",
            "profile",
            "operator",
            "operation",
            "identifiers",
            "result",
            "latencyMs",
            "prevHash",
            "hash",
            "dbUser",
        ])
        .map_err(|e| io(&e))?;
        for r in &rows {
            w.write_record(crate::output::safe_record([
                r.id.to_string(),
                chrono::DateTime::from_timestamp_millis(r.at)
                    .map(|t| t.to_rfc3339())
                    .unwrap_or_default(),
                r.profile.clone(),
                r.operator.clone(),
                r.operation.clone(),
                r.identifiers.clone(),
                r.result.clone(),
                r.latency_ms.to_string(),
                r.prev_hash.clone(),
                r.hash.clone(),
                r.db_user.clone().unwrap_or_default(),
            ]))
            .map_err(|e| io(&e))?;
        }
        w.flush().map_err(|e| io(&e))?;
        drop(w);
        out.commit()?;
        Ok(rows.len())
    }
}

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
