//! Fresh figures: a period, or the change horizon, read again from the gateway before
//! a statement or a reconciliation is built of the cache; the profile's reporting
//! settings on the running desk.

use crate::error::{CoreError, CoreResult};
use crate::period::Period;

/// What [`Orders::refresh_period`] did before a statement was built.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Refreshed {
    /// When the period's windows were read again (UTC millis).
    pub at: i64,
    /// Orders whose state changed since the cache last read them.
    pub changed: u64,
    /// Windows the gateway's list did not add up for (named in the sync's report).
    pub incomplete: u64,
    /// Charged-back payins whose charged-back amount was looked up now.
    pub chargebacks_looked_up: u64,
}

/// Days of the change horizon read again together, and costed as one: the re-read goes
/// stretch by stretch, cheapest first.
pub const HORIZON_STRETCH_DAYS: i64 = 7;

/// One stretch of the change horizon as its re-read plans it: `[from, to)` in UTC
/// millis, the orders the cache holds made in it, and the pages reading it again is
/// expected to take (a page of the profile's size per its cached orders, rounded up; an
/// empty stretch is counted in one request with its neighbours: nought).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HorizonStretch {
    pub from: i64,
    pub to: i64,
    pub cached_orders: u64,
    pub expected_pages: u64,
}

impl<'d> super::Orders<'d> {
    /// When the cache was last synced (UTC millis), for "as of the sync at T".
    pub fn last_synced(&self) -> CoreResult<Option<i64>> {
        self.desk
            .store
            .cache_read(|c| c.sync_state.last_synced(&self.desk.profile.name))
    }

    /// Reads the period's orders again from the gateway before a statement or a
    /// reconciliation is built of them: every window of the period (and a day either
    /// side, where its days in another zone reach), in windows of an hour so each order
    /// sits on its real hour in any zone of whole hours, whether or not an earlier sync
    /// completed them (a refund, a chargeback, a settlement or a released reserve comes
    /// days later); then the charged-back amount of each charged-back payin not looked up
    /// yet (the list gives the state only). `cancel` stops it between pages.
    pub async fn refresh_period(
        self,
        period: Period,
        cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
        progress: impl FnMut(&crate::sync::SyncProgress) + Send,
    ) -> CoreResult<Refreshed> {
        const DAY: i64 = 86_400_000;
        let now = self.desk.clock.now_ms();
        // A minute past now: the windows end on a whole second, and an order made in
        // the last second is read all the same.
        let to = (period.to + DAY).min(now + 60_000);
        let from = period.from - DAY;
        let (mut changed, mut incomplete) = (0, 0);
        // Hours where an order's hour decides its day (a day either side of each
        // boundary), days in between: most of a month costs a request a day.
        let mut spans: Vec<(i64, i64, i64)> = Vec::new();
        if period.to - period.from > 4 * DAY {
            spans.push((from, period.from + DAY, 1));
            spans.push((period.from + DAY, period.to - DAY, 24));
            spans.push((period.to - DAY, to, 1));
        } else {
            spans.push((from, to, 1));
        }
        let mut progress = progress;
        for (a, b, hours) in spans {
            let b = b.min(to);
            if b <= a {
                continue;
            }
            let ms = |t: i64| chrono::DateTime::from_timestamp_millis(t).unwrap_or_default();
            let opts = crate::sync::SyncOptions {
                from: ms(a),
                to: ms(b),
                window_hours: hours,
                full: true,
                ..self.sync_options(1)
            };
            let report = self.sync(&opts, cancel.clone(), &mut progress).await?;
            changed += report.changed;
            incomplete += report.incomplete_count;
            if cancel.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(CoreError::keyed("refresh", "cancelled", "cancelled", &[]));
            }
        }
        let chargebacks_looked_up = self.look_up_chargebacks(period, &cancel).await?;
        Ok(Refreshed {
            at: now,
            changed,
            incomplete,
            chargebacks_looked_up,
        })
    }

    /// Looks up the charged-back amount of every charged-back payin of `period` whose
    /// amount is not cached yet; returns how many were looked up.
    pub async fn look_up_chargebacks(
        self,
        period: Period,
        cancel: &std::sync::atomic::AtomicBool,
    ) -> CoreResult<u64> {
        use paydesk_gateway::{Meaning, StateField};
        let states: Vec<i64> = self
            .desk
            .dictionary
            .entries(StateField::OrderState)
            .filter(|(_, m)| *m == Meaning::ChargedBack)
            .filter_map(|(raw, _)| raw.parse().ok())
            .collect();
        if states.is_empty() {
            return Ok(0);
        }
        let filter = crate::store::orders::OrderFilter {
            from: Some(period.from),
            to: Some(period.to),
            states,
            kinds: vec![crate::store::orders::OrderKind::Payin],
            unknown_kind: true,
            ..Default::default()
        };
        let mut wanted = Vec::new();
        self.desk.store.orders().for_each(&filter, &mut |o| {
            wanted.push(o.trade_no.clone());
            Ok(())
        })?;
        let mut n = 0;
        for trade_no in wanted {
            if cancel.load(std::sync::atomic::Ordering::Relaxed) {
                break;
            }
            let known = self
                .desk
                .store
                .reversals()
                .list(Some(&trade_no))?
                .iter()
                .any(|r| r.kind == "chargeback" && r.amount.is_some());
            if !known {
                self.query_order(&trade_no, "chargeback").await?;
                n += 1;
            }
        }
        Ok(n)
    }

    /// The profile's reporting settings (business zone, change horizon): as read when
    /// the desk opened, or as last set on the running desk.
    pub fn reporting(&self) -> crate::profile::Reporting {
        crate::desk::lock(&self.desk.reporting).clone()
    }

    /// The running desk takes these reporting settings (checked) at once: the next
    /// re-read of the change horizon covers its new days. (Keeping them with the profile
    /// is [`crate::Home::set_reporting`]'s.)
    pub fn use_reporting(&self, reporting: crate::profile::Reporting) -> CoreResult<()> {
        reporting.validate()?;
        *crate::desk::lock(&self.desk.reporting) = reporting;
        Ok(())
    }

    /// The stretches of the change horizon up to now, in the order its re-read takes
    /// them: cheapest first (fewest expected pages, then fewest cached orders), the
    /// newest first among equals. Stretches sit on whole UTC days (the sync's grid of
    /// daily windows), [`HORIZON_STRETCH_DAYS`] each, the newest reaching now.
    pub fn horizon_plan(&self) -> CoreResult<Vec<HorizonStretch>> {
        const DAY: i64 = 86_400_000;
        let days = i64::from(self.reporting().change_horizon_days);
        let base = self.sync_options(days);
        let to = base.to.timestamp_millis();
        let first = base.from.timestamp_millis().div_euclid(DAY) * DAY;
        let page = u64::try_from(base.page_size.max(1)).unwrap_or(1);
        let mut plan = Vec::new();
        let mut from = first;
        while from < to {
            let end = (from + HORIZON_STRETCH_DAYS * DAY).min(to);
            let filter = crate::store::orders::OrderFilter {
                from: Some(from),
                to: Some(end),
                ..Default::default()
            };
            let cached = u64::try_from(self.desk.store.orders().count(&filter)?).unwrap_or(0);
            plan.push(HorizonStretch {
                from,
                to: end,
                cached_orders: cached,
                expected_pages: cached.div_ceil(page),
            });
            from = end;
        }
        plan.sort_by_key(|s| (s.expected_pages, s.cached_orders, std::cmp::Reverse(s.from)));
        Ok(plan)
    }

    /// Reads again every window of the change horizon (the profile's, 120 days unless
    /// set; finished orders too), stretch by stretch in [`Orders::horizon_plan`]'s order,
    /// cheapest first: what a reconciliation up to now is built on, and what the running
    /// desk does on a schedule. Cut short (cancelled, the gateway failing), the most
    /// stretches for the requests spent were read again. Then the charged-back amount of
    /// each charged-back payin of the horizon not looked up yet. The report sums the
    /// stretches'.
    pub async fn refresh_horizon(
        self,
        cancel: std::sync::Arc<std::sync::atomic::AtomicBool>,
        progress: impl FnMut(&crate::sync::SyncProgress) + Send,
    ) -> CoreResult<crate::sync::SyncReport> {
        let mut progress = progress;
        let base = crate::sync::SyncOptions {
            full: true,
            ..self.sync_options(i64::from(self.reporting().change_horizon_days))
        };
        let mut total = crate::sync::SyncReport::default();
        let plan = self.horizon_plan()?;
        for stretch in plan.iter().cloned() {
            if cancel.load(std::sync::atomic::Ordering::Relaxed) {
                break;
            }
            let ms = |t: i64| chrono::DateTime::from_timestamp_millis(t).unwrap_or_default();
            let opts = crate::sync::SyncOptions {
                from: ms(stretch.from),
                to: ms(stretch.to),
                ..base.clone()
            };
            let r = self.sync(&opts, cancel.clone(), &mut progress).await?;
            total.windows_skipped += r.windows_skipped;
            total.changed += r.changed;
            total.reread += r.reread;
            total.seconds += r.seconds;
            total.write_seconds += r.write_seconds;
            total.refused_count += r.refused_count;
            total.refused.extend(r.refused);
            total.requests += r.requests;
            total.retries += r.retries;
            total.windows_reread += r.windows_reread;
            total.incomplete_count += r.incomplete_count;
            total.incomplete.extend(r.incomplete);
            total.progress = r.progress;
        }
        total.refused.truncate(crate::sync::MAX_REFUSED_SHOWN);
        total.incomplete.truncate(crate::sync::MAX_REFUSED_SHOWN);
        // The amounts of the horizon's new chargebacks (the list gives the state only).
        let from = plan.iter().map(|s| s.from).min();
        let to = plan.iter().map(|s| s.to).max();
        if let (Some(from), Some(to)) = (from, to)
            && !cancel.load(std::sync::atomic::Ordering::Relaxed)
        {
            self.look_up_chargebacks(Period::new(from, to)?, &cancel)
                .await?;
        }
        Ok(total)
    }
}
