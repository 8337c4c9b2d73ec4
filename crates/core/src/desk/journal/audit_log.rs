//! The audit log as the journal service reads and writes it: its check (with the
//! keyring's anchor and alert), its rows, its CSV export, and an operation appended by a
//! crate that extends the desk.

use crate::audit::{self};
use std::time::Instant;

use crate::error::CoreResult;

/// How often Activity's check reads the whole audit chain again (a day): in between, it
/// reads only the rows after the last one checked.
pub const WHOLE_CHECK_EVERY: i64 = 86_400_000;

impl<'d> crate::desk::Journal<'d> {
    /// Checks the whole audit chain, every row from the first (what `paydesk audit
    /// verify` runs); found sealed, the keyring records how far (for [`Self::audit_check`]).
    pub fn audit_verify(&self) -> CoreResult<audit::ChainCheck> {
        let name = &self.desk.profile.name;
        let anchor = self.desk.secrets.audit_anchor(name)?;
        let alert = self.desk.secrets.audit_alert(name)?;
        let check = self.desk.store.audit().verify_with_alert(
            self.desk.audit_key.expose(),
            anchor.as_ref(),
            alert,
        )?;
        self.record_checked(&check, self.desk.now_ms());
        Ok(check)
    }

    /// The audit chain's check for the Activity screen: when the whole chain was checked
    /// less than [`WHOLE_CHECK_EVERY`] ago and the row it reached is still there with
    /// the same hash, only the rows after that row are checked (and the anchor and the
    /// head record, as always); otherwise, or when that finds the chain broken, the
    /// whole chain is checked ([`Self::audit_verify`]). So a row changed after it was
    /// checked is found by the first check a day (or `paydesk audit verify`), and a row
    /// added, changed or removed since by every check.
    pub fn audit_check(&self) -> CoreResult<audit::ChainCheck> {
        let name = &self.desk.profile.name;
        let now = self.desk.now_ms();
        let Some(checked) = self
            .desk
            .secrets
            .audit_checked(name)?
            .filter(|c| now >= c.whole_at && now - c.whole_at < WHOLE_CHECK_EVERY)
        else {
            return self.audit_verify();
        };
        let anchor = self.desk.secrets.audit_anchor(name)?;
        let alert = self.desk.secrets.audit_alert(name)?;
        // Bound first: the store's lock is let go before the arms below take it again.
        let since = self.desk.store.audit().verify_since(
            self.desk.audit_key.expose(),
            anchor.as_ref(),
            checked.last_id,
            &checked.last_hash,
        )?;
        match since {
            Some(c) if c.ok => {
                let c = c.with_alert(alert);
                if c.ok && c.rows > checked.last_id {
                    self.keep_checked(c.rows, checked.whole_at);
                }
                Ok(c)
            }
            // Broken after the row checked, or that row changed: the whole chain says
            // where and why.
            _ => self.audit_verify(),
        }
    }

    /// Records how far a whole check found the chain sealed (best effort: without it the
    /// next check is a whole one).
    fn record_checked(&self, check: &audit::ChainCheck, whole_at: i64) {
        if check.ok && check.rows > 0 {
            self.keep_checked(check.rows, whole_at);
        } else if let Err(err) = self
            .desk
            .secrets
            .forget_audit_checked(&self.desk.profile.name)
        {
            // Broken (or empty): no check may start from a row found sealed before.
            tracing::warn!(error = %err, "how far the audit chain was checked is not forgotten");
        }
    }

    /// Keeps in the keyring that rows 1 to `upto` were found sealed (the whole chain
    /// checked at `whole_at`), with row `upto`'s hash; nothing when the newest row is
    /// another (one was appended since the check: the next check reads it).
    fn keep_checked(&self, upto: i64, whole_at: i64) {
        let last = self.desk.store.audit().list(&audit::AuditFilter {
            limit: Some(1),
            ..Default::default()
        });
        if let Ok(Some(e)) = last.map(|r| r.into_iter().next())
            && e.id == upto
        {
            let c = crate::secrets::AuditChecked {
                last_id: e.id,
                last_hash: e.hash,
                whole_at,
            };
            if let Err(err) = self
                .desk
                .secrets
                .set_audit_checked(&self.desk.profile.name, &c)
            {
                tracing::warn!(error = %err, "how far the audit chain was checked is not kept");
            }
        }
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
