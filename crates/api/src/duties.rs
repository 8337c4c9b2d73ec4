//! The background duties of a running desk, one function each, that the app's timers
//! and the CLI's long-running commands call (they only say when): the profile's
//! scheduled balance snapshot ([`snapshot_if_due`]) and its scheduled reports
//! ([`reports_if_due`]). Both read "now" from the desk's clock, so what is due follows
//! the engine's time, a test's clock included. [`keep_running`] is the loop the
//! signer's worker (`paydesk team worker`) runs them in.

use std::sync::Arc;

use paydesk_core::schedule::ScheduleRun;
use paydesk_core::{CoreResult, Desk, Home};

/// Who makes a scheduled report's run, as its record says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    /// The app, while its desk is open.
    Desk,
    /// The signer's worker (`paydesk team worker`).
    Worker,
    /// `paydesk schedule run-due` (cron).
    Cli,
}

impl By {
    pub fn as_str(self) -> &'static str {
        match self {
            By::Desk => "desk",
            By::Worker => "worker",
            By::Cli => "cli",
        }
    }
}

/// How often [`keep_running`] looks for duties due.
pub const TICK: std::time::Duration = paydesk_reports::schedule::TICK;

/// A snapshot of every currency the desk knows when the profile's schedule
/// (`balancesEveryMins`) says one is due by the desk's clock; the number of currencies
/// kept, none when nothing was due (a desk without the merchant key, a sync running,
/// the schedule off, the last snapshot recent enough).
pub async fn snapshot_if_due(desk: &Desk) -> CoreResult<Option<usize>> {
    desk.money().snapshot_balances_if_due(desk.now_ms()).await
}

/// Every scheduled report of the desk's profile due by the desk's clock and not run yet
/// (those missed while nothing ran caught up), as recorded.
pub async fn reports_if_due(desk: &Arc<Desk>, home: &Home, by: By) -> CoreResult<Vec<ScheduleRun>> {
    paydesk_reports::schedule::run_due(desk, home, desk.now_ms(), by.as_str()).await
}

/// Runs both duties at once and then every `tick` while `desk` is kept by someone else
/// (the task ends when it is dropped, or when the handle is aborted); a failed round is
/// logged and the next one tried. `on_run` hears each report run made.
pub fn keep_running(
    desk: &Arc<Desk>,
    home: Home,
    by: By,
    tick: std::time::Duration,
    on_run: impl Fn(&ScheduleRun) + Send + 'static,
) -> tokio::task::JoinHandle<()> {
    let desk = Arc::downgrade(desk);
    tokio::spawn(async move {
        loop {
            let Some(d) = desk.upgrade() else { return };
            match reports_if_due(&d, &home, by).await {
                Ok(runs) => runs.iter().for_each(&on_run),
                Err(e) => tracing::warn!(profile = %d.profile.name, "scheduled reports: {e}"),
            }
            match snapshot_if_due(&d).await {
                Ok(Some(n)) => tracing::info!(currencies = n, "scheduled balance snapshot"),
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!(profile = %d.profile.name, "scheduled balance snapshot: {e}")
                }
            }
            drop(d);
            tokio::time::sleep(tick).await;
        }
    })
}
