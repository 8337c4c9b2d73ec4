//! Reports: the statement of a period, two periods side by side, and its export.

use std::path::Path;
use std::time::Instant;

use super::Desk;
use crate::error::{CoreError, CoreResult};
use crate::statement::export::StatementExport;
use crate::statement::{Comparison, Period, Statement};

impl Desk {
    /// The reconciliation of `currency`'s balance between its snapshots taken at
    /// `from_at` and `to_at` (their `takenAt`), from the cache.
    pub fn reconcile_balance(
        &self,
        currency: &str,
        from_at: i64,
        to_at: i64,
    ) -> CoreResult<crate::reconcile::Reconciliation> {
        let history = self.store.balances().history(currency)?;
        let at = |field: &str, t: i64| {
            history
                .iter()
                .find(|s| s.taken_at == t)
                .cloned()
                .ok_or_else(|| {
                    CoreError::validation(field, format!("no {currency} snapshot taken at {t}"))
                })
        };
        crate::reconcile::reconcile(
            &*self.store.orders(),
            &self.dictionary,
            at("from", from_at)?,
            at("to", to_at)?,
        )
    }

    /// Paid payins not settled yet and rolling reserve not released yet, per currency of
    /// the cache (`currency` only, when given).
    pub fn upcoming(&self, currency: Option<&str>) -> CoreResult<Vec<crate::reconcile::Upcoming>> {
        crate::reconcile::upcoming(&*self.store.orders(), &self.dictionary, currency)
    }

    /// The statement of `period` for `currency` (every currency when `None`), from the
    /// cache.
    pub fn statement(&self, period: Period, currency: Option<&str>) -> CoreResult<Statement> {
        // A code that is no currency is refused, not answered with an empty statement.
        if let Some(c) = currency {
            paydesk_gateway::validate::currency("currency", c)?;
        }
        Statement::build(&*self.store.orders(), &self.dictionary, period, currency)
    }

    /// `current` and `previous` side by side (this month against the last).
    pub fn statement_compare(
        &self,
        current: Period,
        previous: Period,
        currency: Option<&str>,
    ) -> CoreResult<Comparison> {
        Ok(Statement::compare(
            self.statement(current, currency)?,
            self.statement(previous, currency)?,
        ))
    }

    /// Writes the statement of `period` to `path` (.csv, .xlsx or .pdf), dated in `tz`,
    /// made now by the desk's clock, naming the profile and its merchant number; returns
    /// it with what the file carries (rows, SHA-256).
    pub fn export_statement(
        &self,
        period: Period,
        currency: Option<&str>,
        path: &Path,
        existing: crate::output::Existing,
        tz: impl Into<crate::statement::Zone>,
    ) -> CoreResult<(Statement, StatementExport)> {
        let tz = tz.into();
        let started = Instant::now();
        let r = self.statement(period, currency).and_then(|s| {
            let made = crate::statement::export::export(
                &*self.store.orders(),
                &s,
                &self.dictionary,
                crate::output::create(path, existing)?,
                tz,
                self.clock.now_ms(),
                &format!("{} (merNo {})", self.profile.name, self.profile.mer_no),
            )?;
            Ok((s, made))
        });
        let result = match &r {
            Ok((_, e)) => format!("ok {} rows sha256={}", e.rows, e.sha256),
            Err(e) => format!("error {e}"),
        };
        self.audit(
            "statement.export",
            format!(
                "file={} from={} to={} currency={}",
                path.file_name()
                    .and_then(|f| f.to_str())
                    .unwrap_or_default(),
                period.from,
                period.to,
                currency.unwrap_or("all")
            ),
            &result,
            started,
        );
        r
    }
}
