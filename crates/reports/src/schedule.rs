//! Making a scheduled report's runs ([`paydesk_core::schedule`] keeps the calendar,
//! the schedules and their runs): the runs due now (on time, or caught up after the desk
//! was closed at their time), or one a person asks for; each reads its period again
//! when its schedule says so, writes its file into its folder under a name no earlier
//! run has (`…_02` for a second file of the same period), and is recorded ok or failed
//! with the error. [`run_due`] is called by `paydesk_api::duties` for the app's desk,
//! the team's worker and `paydesk schedule run-due`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use paydesk_core::schedule::{Claim, ReportKind, RunOutcome, ScheduleRun};
use paydesk_core::{Desk, Home};

use crate::DeskReports;
use crate::error::{CoreError, CoreResult};
use crate::statement::Period;

/// How long a run waits for a sync already running on the desk before reading its period.
const SYNC_WAIT: std::time::Duration = std::time::Duration::from_secs(15 * 60);

/// How often a running desk looks for runs due.
pub const TICK: std::time::Duration = std::time::Duration::from_secs(30);

/// Makes every run of the desk's profile due by `now` and not taken yet; answers the
/// runs as recorded (missed ones recorded but not run are not in it).
pub async fn run_due(
    desk: &Arc<Desk>,
    home: &Home,
    now: i64,
    by: &str,
) -> CoreResult<Vec<ScheduleRun>> {
    let zone = desk.orders().reporting().zone();
    // Read first without the lock (a running desk asks every few seconds): nothing due,
    // nothing written.
    let book = home.schedules(&desk.profile.name)?;
    let due = book.schedules.iter().any(|s| {
        !s.paused
            && paydesk_core::schedule::next_run_after(&s.spec.cadence, &zone, s.checked_through)
                .is_ok_and(|t| t <= now)
    });
    if !due {
        return Ok(Vec::new());
    }
    let claims = home.claim_due(&desk.profile.name, &zone, now, by)?;
    let mut out = Vec::new();
    for c in claims {
        out.push(finish(desk, home, c).await?);
    }
    Ok(out)
}

/// Makes a run of schedule `id` now, of the last whole period before `now`.
pub async fn run_now(
    desk: &Arc<Desk>,
    home: &Home,
    id: u32,
    now: i64,
    by: &str,
) -> CoreResult<ScheduleRun> {
    let zone = desk.orders().reporting().zone();
    let claim = home.claim_now(&desk.profile.name, id, &zone, now, by)?;
    finish(desk, home, claim).await
}

async fn finish(desk: &Arc<Desk>, home: &Home, c: Claim) -> CoreResult<ScheduleRun> {
    let mut run = c.run.clone();
    let started = std::time::Instant::now();
    match execute(desk, &c).await {
        Ok((file, rows)) => {
            run.outcome = RunOutcome::Ok;
            run.file = Some(file.display().to_string());
            run.rows = Some(rows);
        }
        Err(e) => {
            run.outcome = RunOutcome::Failed;
            run.error = Some(e);
        }
    }
    let took = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
    run.finished_at = Some(run.started_at.saturating_add(took));
    tracing::info!(
        profile = %desk.profile.name,
        schedule = run.schedule,
        outcome = ?run.outcome,
        file = run.file.as_deref().unwrap_or(""),
        "scheduled report"
    );
    home.finish_run(&desk.profile.name, &run)?;
    Ok(run)
}

fn day(text: &str) -> CoreResult<chrono::NaiveDate> {
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map_err(|_| CoreError::internal(format!("a run's day {text:?}")))
}

/// The first name in `folder` no file has: the period's, then `_02`, `_03`, ...
fn free_name(folder: &Path, name: impl Fn(u32) -> String) -> CoreResult<PathBuf> {
    for copy in 1..=99 {
        let p = folder.join(name(copy));
        if std::fs::symlink_metadata(&p).is_err() {
            return Ok(p);
        }
    }
    Err(CoreError::validation(
        "folder",
        "already holds 99 files of this period: move some away",
    ))
}

/// Writes a run's file; the error in words when it could not.
async fn execute(desk: &Arc<Desk>, c: &Claim) -> Result<(PathBuf, u64), String> {
    let spec = &c.schedule.spec;
    let zone = desk.orders().reporting().zone();
    let text = |e: CoreError| e.to_string();
    let (first, last) = (
        day(&c.run.first_day).map_err(text)?,
        day(&c.run.last_day).map_err(text)?,
    );
    let period = Period::days(first, last, zone).map_err(text)?;
    if spec.refresh {
        // One sync at a time on a desk: a run that falls due during the operator's sync
        // (or the horizon's re-read) waits for it, up to a quarter of an hour, rather than
        // fail.
        let mut tries = 0;
        loop {
            let waited = std::time::Instant::now();
            while desk.orders().syncing() && waited.elapsed() < SYNC_WAIT {
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            }
            match desk
                .orders()
                .refresh_period(period, Arc::default(), |_| {})
                .await
            {
                Ok(_) => break,
                Err(_) if desk.orders().syncing() && tries < 3 => tries += 1,
                Err(e) => {
                    return Err(format!(
                        "the period could not be read again from the gateway, so no file was written: {e}"
                    ));
                }
            }
        }
    }
    let folder = PathBuf::from(spec.folder.trim());
    std::fs::create_dir_all(&folder)
        .map_err(|e| format!("the folder {} cannot be made: {e}", folder.display()))?;
    let currency = spec.currency.trim().to_ascii_uppercase();
    // A name another run (another process) takes between the choice and the write is
    // refused, never replaced: the next free name is taken then.
    let mut tries = 0;
    loop {
        let path = free_name(&folder, |copy| spec.file_name(first, last, copy)).map_err(text)?;
        match write(desk, spec.report, period, zone, &currency, &path).await {
            Ok(rows) => return Ok((path, rows)),
            Err(_) if tries < 3 && std::fs::symlink_metadata(&path).is_ok() => tries += 1,
            Err(e) => return Err(format!("{}: {e}", path.display())),
        }
    }
}

/// Writes the report of `period` to `path`, never over a file there.
async fn write(
    desk: &Arc<Desk>,
    report: ReportKind,
    period: Period,
    zone: crate::statement::Zone,
    currency: &str,
    path: &Path,
) -> Result<u64, String> {
    let desk = desk.clone();
    let target = path.to_path_buf();
    let currency = currency.to_string();
    tokio::task::spawn_blocking(move || -> CoreResult<u64> {
        let existing = paydesk_core::output::Existing::Refuse;
        match report {
            ReportKind::Statement => {
                let c = (!currency.is_empty()).then_some(currency.as_str());
                let (_, made) = desk.export_statement(period, c, &target, existing, zone)?;
                Ok(made.rows)
            }
            ReportKind::Orders => {
                let filter = crate::store::orders::OrderFilter {
                    from: Some(period.from),
                    to: Some(period.to),
                    currencies: if currency.is_empty() {
                        vec![]
                    } else {
                        vec![currency.clone()]
                    },
                    ..Default::default()
                };
                desk.export(&filter, &target, existing, zone, |_, _| {})
            }
        }
    })
    .await
    .map_err(|e| e.to_string())?
    .map_err(|e| e.to_string())
}
