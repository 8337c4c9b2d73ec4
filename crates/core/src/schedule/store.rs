//! A profile's schedules and their runs, kept in the home (`data/<profile>.schedules.json`),
//! changed under a lock on `data/<profile>.schedules.lock` so that a desk, a worker and
//! `run-due` from cron on one machine never take the same run twice.

use std::io::Write;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{
    CATCH_UP_MAX, LATE_MS, RunOutcome, Schedule, ScheduleRun, ScheduleSpec, Trigger, due_between,
    period_of,
};
use crate::error::{CoreError, CoreResult};
use crate::period::Zone;
use crate::profile::Home;

/// A run not finished this long after it started was cut off.
const INTERRUPTED_AFTER_MS: i64 = 6 * 3_600_000;

/// Runs kept per profile (the newest).
const RUNS_KEPT: usize = 500;

/// Everything kept of a profile's schedules.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ScheduleBook {
    pub schedules: Vec<Schedule>,
    /// Oldest first.
    pub runs: Vec<ScheduleRun>,
    next_id: u32,
    next_run: u64,
}

impl ScheduleBook {
    /// The newest run of schedule `id`.
    pub fn last_run(&self, id: u32) -> Option<&ScheduleRun> {
        self.runs.iter().rev().find(|r| r.schedule == id)
    }

    fn find(&mut self, id: u32) -> CoreResult<&mut Schedule> {
        self.schedules
            .iter_mut()
            .find(|s| s.id == id)
            .ok_or_else(|| CoreError::not_found(format!("no schedule {id}")))
    }

    fn record(&mut self, mut run: ScheduleRun) -> ScheduleRun {
        self.next_run += 1;
        run.id = self.next_run;
        self.runs.push(run.clone());
        if self.runs.len() > RUNS_KEPT {
            self.runs.drain(..self.runs.len() - RUNS_KEPT);
        }
        run
    }

    /// What needs a person: a schedule whose newest finished run failed, and every run
    /// missed at its time (caught up or not), until acknowledged; newest first.
    pub fn alerts(&self) -> Vec<ScheduleAlert> {
        let mut out = Vec::new();
        for r in self.runs.iter().rev() {
            if r.acknowledged || out.len() >= 50 {
                continue;
            }
            let latest_finished = self
                .runs
                .iter()
                .rev()
                .find(|x| x.schedule == r.schedule && x.outcome != RunOutcome::Running)
                .is_some_and(|x| x.id == r.id);
            let failed = r.outcome == RunOutcome::Failed && latest_finished;
            let missed = r.outcome == RunOutcome::Missed || r.trigger == Trigger::CatchUp;
            if failed || missed {
                out.push(ScheduleAlert {
                    run: r.clone(),
                    failed,
                    missed,
                });
            }
        }
        out
    }
}

/// A run a person should see on the Dashboard.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleAlert {
    pub run: ScheduleRun,
    /// It failed (and no later run of its schedule finished).
    pub failed: bool,
    /// It was missed at its time (caught up later, or not run).
    pub missed: bool,
}

fn new_run(
    s: &Schedule,
    trigger: Trigger,
    due_at: Option<i64>,
    days: (chrono::NaiveDate, chrono::NaiveDate),
    now: i64,
    by: &str,
) -> ScheduleRun {
    ScheduleRun {
        id: 0,
        schedule: s.id,
        name: s.spec.name.trim().to_string(),
        trigger,
        due_at,
        first_day: days.0.format("%Y-%m-%d").to_string(),
        last_day: days.1.format("%Y-%m-%d").to_string(),
        started_at: now,
        finished_at: None,
        outcome: RunOutcome::Running,
        file: None,
        rows: None,
        error: None,
        by: by.to_string(),
        acknowledged: false,
    }
}

/// A run to make now: its schedule as it stood, and its record (running).
#[derive(Debug, Clone)]
pub struct Claim {
    pub schedule: Schedule,
    pub run: ScheduleRun,
}

impl Home {
    fn schedules_file(&self, profile: &str) -> PathBuf {
        self.dir()
            .join("data")
            .join(format!("{profile}.schedules.json"))
    }

    /// A profile's schedules and their runs.
    pub fn schedules(&self, profile: &str) -> CoreResult<ScheduleBook> {
        let path = self.schedules_file(profile);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                CoreError::storage(format!("{}: cannot be read ({e})", path.display()))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ScheduleBook::default()),
            Err(e) => Err(e.into()),
        }
    }

    /// Changes a profile's schedules under the lock (no other process changes them
    /// meanwhile), and keeps the result.
    fn change_schedules<T>(
        &self,
        profile: &str,
        f: impl FnOnce(&mut ScheduleBook) -> CoreResult<T>,
    ) -> CoreResult<T> {
        let path = self.schedules_file(profile);
        let dir = path.parent().map(PathBuf::from).unwrap_or_default();
        crate::private_fs::dir(&dir)?;
        let lock_path = path.with_extension("lock");
        crate::private_fs::file(&lock_path)?;
        let lock = std::fs::OpenOptions::new().write(true).open(&lock_path)?;
        lock.lock()?;
        let mut book = self.schedules(profile)?;
        let out = f(&mut book)?;
        let tmp = path.with_extension("json.tmp");
        let text =
            serde_json::to_vec_pretty(&book).map_err(|e| CoreError::internal(e.to_string()))?;
        crate::private_fs::write(&tmp, &text)?;
        std::fs::OpenOptions::new()
            .write(true)
            .open(&tmp)?
            .flush()?;
        std::fs::rename(&tmp, &path)?;
        drop(lock);
        Ok(out)
    }

    /// Adds a schedule (checked); its first run is the first due after `now`.
    pub fn add_schedule(
        &self,
        profile: &str,
        spec: ScheduleSpec,
        now: i64,
    ) -> CoreResult<Schedule> {
        spec.validate()?;
        self.change_schedules(profile, |b| {
            b.next_id += 1;
            let s = Schedule {
                id: b.next_id,
                spec,
                paused: false,
                created_at: now,
                checked_through: now,
            };
            b.schedules.push(s.clone());
            Ok(s)
        })
    }

    /// Changes a schedule (checked); runs due from `now` on follow the new one.
    pub fn edit_schedule(
        &self,
        profile: &str,
        id: u32,
        spec: ScheduleSpec,
        now: i64,
    ) -> CoreResult<Schedule> {
        spec.validate()?;
        self.change_schedules(profile, |b| {
            let s = b.find(id)?;
            s.spec = spec;
            s.checked_through = s.checked_through.max(now);
            Ok(s.clone())
        })
    }

    /// Pauses or resumes a schedule; a resumed schedule runs from `now` on (what fell due
    /// while it was paused is not run, nor missed).
    pub fn pause_schedule(
        &self,
        profile: &str,
        id: u32,
        paused: bool,
        now: i64,
    ) -> CoreResult<Schedule> {
        self.change_schedules(profile, |b| {
            let s = b.find(id)?;
            if s.paused && !paused {
                s.checked_through = s.checked_through.max(now);
            }
            s.paused = paused;
            Ok(s.clone())
        })
    }

    /// Removes a schedule (its runs stay in the record, its files in their folder).
    pub fn remove_schedule(&self, profile: &str, id: u32) -> CoreResult<()> {
        self.change_schedules(profile, |b| {
            b.find(id)?;
            b.schedules.retain(|s| s.id != id);
            for r in b.runs.iter_mut().filter(|r| r.schedule == id) {
                r.acknowledged = true;
            }
            Ok(())
        })
    }

    /// Takes every run due by `now` and not taken yet, for `by` to make: on time, or
    /// caught up when later than [`LATE_MS`] (the newest [`CATCH_UP_MAX`] of a schedule;
    /// older ones recorded missed, not run). `zone` is the business zone.
    pub fn claim_due(
        &self,
        profile: &str,
        zone: &Zone,
        now: i64,
        by: &str,
    ) -> CoreResult<Vec<Claim>> {
        self.change_schedules(profile, |b| {
            // A run still "running" long after it started was cut off (the desk or the
            // worker stopped during it): failed, so it is seen and run again.
            for r in b.runs.iter_mut().filter(|r| {
                r.outcome == RunOutcome::Running && now - r.started_at > INTERRUPTED_AFTER_MS
            }) {
                r.outcome = RunOutcome::Failed;
                r.finished_at = Some(now);
                r.error = Some("interrupted: the desk or the worker stopped during the run".into());
            }
            let mut claims = Vec::new();
            let mut records = Vec::new();
            for s in b.schedules.iter_mut().filter(|s| !s.paused) {
                let due = due_between(&s.spec.cadence, zone, s.checked_through, now, 400)?;
                s.checked_through = s.checked_through.max(now);
                let keep_from = due.len().saturating_sub(CATCH_UP_MAX);
                for (i, at) in due.into_iter().enumerate() {
                    let days = period_of(&s.spec.cadence, zone, at);
                    let late = now - at > LATE_MS;
                    let trigger = if late { Trigger::CatchUp } else { Trigger::OnTime };
                    let mut run = new_run(s, trigger, Some(at), days, now, by);
                    if i < keep_from {
                        run.outcome = RunOutcome::Missed;
                        run.finished_at = Some(now);
                        run.error = Some(format!(
                            "missed: more than {CATCH_UP_MAX} runs fell due while nothing ran; run this period by hand"
                        ));
                        records.push((None, run));
                    } else {
                        records.push((Some(s.clone()), run));
                    }
                }
            }
            for (schedule, run) in records {
                let run = b.record(run);
                if let Some(schedule) = schedule {
                    claims.push(Claim { schedule, run });
                }
            }
            Ok(claims)
        })
    }

    /// Takes a run of schedule `id` now (Run now): of the last whole period before `now`.
    pub fn claim_now(
        &self,
        profile: &str,
        id: u32,
        zone: &Zone,
        now: i64,
        by: &str,
    ) -> CoreResult<Claim> {
        self.change_schedules(profile, |b| {
            let s = b.find(id)?.clone();
            let days = period_of(&s.spec.cadence, zone, now);
            let run = b.record(new_run(&s, Trigger::Manual, None, days, now, by));
            Ok(Claim { schedule: s, run })
        })
    }

    /// Records how a run ended.
    pub fn finish_run(&self, profile: &str, run: &ScheduleRun) -> CoreResult<()> {
        self.change_schedules(profile, |b| {
            if let Some(r) = b.runs.iter_mut().find(|r| r.id == run.id) {
                *r = run.clone();
            }
            Ok(())
        })
    }

    /// Marks runs seen: off the Dashboard's attention list.
    pub fn acknowledge_runs(&self, profile: &str, ids: &[u64]) -> CoreResult<()> {
        self.change_schedules(profile, |b| {
            for r in b.runs.iter_mut().filter(|r| ids.contains(&r.id)) {
                r.acknowledged = true;
            }
            Ok(())
        })
    }
}
