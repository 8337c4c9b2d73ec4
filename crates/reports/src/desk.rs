//! Reports of a desk: the statement of a period, two periods side by side, its export,
//! the balance's reconciliation and the orders' export, over the desk's cache. An
//! extension of the engine's [`Desk`] (`use paydesk_reports::DeskReports`), so the engine
//! never links the writers.

use std::path::Path;
use std::time::Instant;

use paydesk_core::Desk;
use paydesk_core::store::orders::OrderFilter;

use crate::error::{CoreError, CoreResult};
use crate::statement::export::StatementExport;
use crate::statement::{Comparison, Period, Statement};

/// What a desk reports of its cache.
pub trait DeskReports {
    /// The reconciliation of `currency`'s balance between its snapshots taken at
    /// `from_at` and `to_at` (their `takenAt`), from the cache.
    fn reconcile_balance(
        &self,
        currency: &str,
        from_at: i64,
        to_at: i64,
    ) -> CoreResult<crate::reconcile::Reconciliation>;

    /// Paid payins not settled yet and rolling reserve not released yet, per currency of
    /// the cache (`currency` only, when given).
    fn upcoming(&self, currency: Option<&str>) -> CoreResult<Vec<crate::reconcile::Upcoming>>;

    /// The statement of `period` for `currency` (every currency when `None`), from the
    /// cache.
    fn statement(&self, period: Period, currency: Option<&str>) -> CoreResult<Statement>;

    /// How many orders of `filter` the cache cannot place exactly on a side of the
    /// period's first or last moment. An order this desk made is dated by the moment it
    /// was made; any other sits at the start of the list window that last placed it, so
    /// one placed less than a day before a boundary is exact only when a complete window
    /// (of an hour or a day) placed it and ends by the boundary ([`Orders::refresh_period`]
    /// reads the hours around each boundary so).
    fn uncertain(
        &self,
        filter: &crate::store::orders::OrderFilter,
        period: Period,
    ) -> CoreResult<i64>;

    /// Why money did not come in (issue 36): the success rate of `period`'s orders by
    /// method, currency and day (in `zone`), the orders that did not come in by the
    /// gateway's reason and message, and the period of the same length just before.
    fn failures(
        &self,
        period: Period,
        zone: crate::statement::Zone,
    ) -> CoreResult<crate::failures::FailureReport>;

    /// `current` and `previous` side by side (this month against the last).
    fn statement_compare(
        &self,
        current: Period,
        previous: Period,
        currency: Option<&str>,
    ) -> CoreResult<Comparison>;

    /// Writes the statement of `period` to `path` (.csv, .xlsx or .pdf), dated in `tz`,
    /// made now by the desk's clock, naming the profile and its merchant number; returns
    /// it with what the file carries (rows, SHA-256).
    fn export_statement(
        &self,
        period: Period,
        currency: Option<&str>,
        path: &Path,
        existing: crate::output::Existing,
        tz: impl Into<crate::statement::Zone>,
    ) -> CoreResult<(Statement, StatementExport)>;

    /// The reconciliation of `currency` between two of its snapshots: `from_at` and
    /// `to_at` (their `takenAt`) when given; else `to` is the latest snapshot and `from`
    /// the one before it. What `paydesk report reconcile` and Balances → Reconcile show.
    fn reconcile_snapshots(
        &self,
        currency: &str,
        from_at: Option<i64>,
        to_at: Option<i64>,
    ) -> CoreResult<crate::reconcile::Reconciliation>;

    /// Exports the filtered orders, every row, to CSV or XLSX (an existing file is
    /// replaced only with [`crate::output::Existing::Replace`]).
    fn export(
        &self,
        filter: &OrderFilter,
        path: &Path,
        existing: crate::output::Existing,
        tz: impl Into<crate::statement::Zone>,
        progress: impl FnMut(u64, u64),
    ) -> CoreResult<u64>;
}

impl DeskReports for Desk {
    fn reconcile_balance(
        &self,
        currency: &str,
        from_at: i64,
        to_at: i64,
    ) -> CoreResult<crate::reconcile::Reconciliation> {
        let history = self.store().balances().history(currency)?;
        let at = |field: &str, t: i64| {
            history
                .iter()
                .find(|s| s.taken_at == t)
                .cloned()
                .ok_or_else(|| {
                    CoreError::keyed(
                        field,
                        format!("no {currency} snapshot taken at {t}"),
                        "snapshotMissing",
                        &[("currency", currency.to_string()), ("at", t.to_string())],
                    )
                })
        };
        crate::reconcile::reconcile(
            &*self.store().orders(),
            self.dictionary(),
            at("from", from_at)?,
            at("to", to_at)?,
        )
    }

    fn upcoming(&self, currency: Option<&str>) -> CoreResult<Vec<crate::reconcile::Upcoming>> {
        crate::reconcile::upcoming(&*self.store().orders(), self.dictionary(), currency)
    }

    fn statement(&self, period: Period, currency: Option<&str>) -> CoreResult<Statement> {
        // A code that is no currency is refused, not answered with an empty statement.
        if let Some(c) = currency {
            paydesk_gateway::validate::currency("currency", c)?;
        }
        let mut s = Statement::build(&*self.store().orders(), self.dictionary(), period, currency)?;
        s.uncertain = self.uncertain(&s.filter, period)?;
        s.as_of = self.orders().last_synced()?;
        Ok(s)
    }

    fn failures(
        &self,
        period: Period,
        zone: crate::statement::Zone,
    ) -> CoreResult<crate::failures::FailureReport> {
        let mut r = crate::failures::FailureReport::build(
            &*self.store().orders(),
            self.dictionary(),
            period,
            &zone,
        )?;
        r.as_of = self.orders().last_synced()?;
        Ok(r)
    }

    fn uncertain(
        &self,
        filter: &crate::store::orders::OrderFilter,
        period: Period,
    ) -> CoreResult<i64> {
        const HOUR: i64 = 3_600_000;
        let mut n = 0;
        let now = self.now_ms();
        for b in [period.from, period.to] {
            if b > now {
                // Every order cached is from before now: none can be past a boundary to
                // come (this month's statement, its end in the future).
                continue;
            }
            let near = crate::store::orders::OrderFilter {
                from: Some(b - 24 * HOUR),
                to: Some(b),
                ..filter.clone()
            };
            let mut at: std::collections::BTreeMap<i64, i64> = Default::default();
            self.store().orders().for_each(&near, &mut |o| {
                if o.made_at.is_none() {
                    *at.entry(o.created_at).or_default() += 1;
                }
                Ok(())
            })?;
            let windows = self.store().sync_state();
            for (c, count) in at {
                // Placed by a complete window (of an hour, or of a day) that ends by the
                // boundary; a window's end is kept as its last second (`dateLimit` is
                // inclusive).
                let mut exact = false;
                for len in [HOUR, 24 * HOUR] {
                    if c + len <= b
                        && windows.window_complete(&self.profile.name, c, c + len - 1000)?
                    {
                        exact = true;
                        break;
                    }
                }
                if !exact {
                    n += count;
                }
            }
        }
        Ok(n)
    }

    fn statement_compare(
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

    fn export_statement(
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
            let purposes =
                crate::purposes::Purposes::of(&*self.store().journal(), &self.profile.name)?;
            let made = crate::statement::export::export_with(
                &*self.store().orders(),
                &s,
                self.dictionary(),
                crate::output::create(path, existing)?,
                tz,
                self.now_ms(),
                &format!("{} (merNo {})", self.profile.name, self.profile.mer_no),
                Some(&purposes),
            )?;
            Ok((s, made))
        });
        let result = match &r {
            Ok((_, e)) => format!("ok {} rows sha256={}", e.rows, e.sha256),
            Err(e) => format!("error {e}"),
        };
        self.journal().audit_operation(
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

    fn reconcile_snapshots(
        &self,
        currency: &str,
        from_at: Option<i64>,
        to_at: Option<i64>,
    ) -> CoreResult<crate::reconcile::Reconciliation> {
        paydesk_gateway::validate::currency("currency", currency)?;
        let mut history = self.store().balances().history(currency)?;
        history.sort_by_key(|s| s.taken_at);
        let to = match to_at {
            Some(t) => t,
            None => history.last().map(|s| s.taken_at).ok_or_else(|| {
                CoreError::keyed(
                    "to",
                    format!(
                        "no {currency} balance snapshot yet: take one (paydesk balance {currency})"
                    ),
                    "snapshotNone",
                    &[("currency", currency.to_string())],
                )
            })?,
        };
        let from = match from_at {
            Some(t) => t,
            None => history
                .iter()
                .rev()
                .map(|s| s.taken_at)
                .find(|t| *t < to)
                .ok_or_else(|| {
                    CoreError::keyed(
                        "from",
                        format!("no {currency} balance snapshot before the one at {to}: a reconciliation needs two"),
                        "snapshotNoEarlier",
                        &[("currency", currency.to_string())],
                    )
                })?,
        };
        self.reconcile_balance(currency, from, to)
    }

    fn export(
        &self,
        filter: &OrderFilter,
        path: &Path,
        existing: crate::output::Existing,
        tz: impl Into<crate::statement::Zone>,
        progress: impl FnMut(u64, u64),
    ) -> CoreResult<u64> {
        let started = Instant::now();
        let r = crate::purposes::Purposes::of(&*self.store().journal(), &self.profile.name)
            .and_then(|purposes| {
                crate::export::export_with(
                    &*self.store().orders(),
                    filter,
                    path,
                    existing,
                    tz,
                    self.dictionary(),
                    Some(&purposes),
                    progress,
                )
            });
        let result = match &r {
            Ok(n) => format!("ok {n} rows"),
            Err(e) => format!("error {e}"),
        };
        self.journal().audit_operation(
            "export",
            format!(
                "file={}",
                path.file_name()
                    .and_then(|f| f.to_str())
                    .unwrap_or_default()
            ),
            &result,
            started,
        );
        r
    }
}
