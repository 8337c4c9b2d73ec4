//! Scheduled reports (issue 36): a statement or an orders export written to a folder
//! daily, weekly on a weekday or monthly on a day, at a time in the business's zone,
//! while the desk or the team's worker runs (or `paydesk schedule run-due` from cron).
//!
//! The calendar is pure ([`next_run_after`], [`due_between`], [`period_of`]): it takes
//! the moment, the zone and the schedule, and answers UTC millis, so its tests are the
//! calendar's. The schedules and their runs are kept per profile in the home
//! (`data/<profile>.schedules.json`, [`Home::schedules`]), like the bulk rows held, so a
//! team profile's schedules are the machine's that runs them; who runs them writes the
//! files (`paydesk_reports::schedule`).
//!
//! What the calendar decides:
//! - **Monthly on a day the month lacks** (the 31st in a 30-day month, the 29th to 31st
//!   in February): the month's last day.
//! - **A time the clock skips** (02:30 on the night summer time starts in Berlin): the
//!   same time after the change, moved by the gap (03:30 summer time), as RFC 5545 and
//!   most calendars do. **A time the clock repeats** (02:30 on the night summer time
//!   ends): once, at its first occurrence.
//! - **Which days a run covers**: the last whole period before the day it runs: a daily
//!   run the day before, a weekly run the 7 days before, a monthly run the month before
//!   (in the business zone), so a file is never of a day still going on.

mod store;

use chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime, TimeZone};
use serde::{Deserialize, Serialize};

use crate::error::{CoreError, CoreResult};
use crate::period::Zone;

pub use store::{Claim, ScheduleAlert, ScheduleBook};

/// How often a schedule runs.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Every {
    Day,
    Week,
    Month,
}

/// When a schedule runs: every day, every week on `weekday` (1 Monday to 7 Sunday) or
/// every month on `day` (1 to 31; a month without that day runs on its last), at `time`
/// (`HH:MM`, 24 hours) in the business zone.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cadence {
    pub every: Every,
    #[serde(default = "one")]
    pub weekday: u8,
    #[serde(default = "one")]
    pub day: u8,
    pub time: String,
}

fn one() -> u8 {
    1
}

impl Cadence {
    /// Checked member by member.
    pub fn validate(&self) -> CoreResult<()> {
        self.clock()?;
        if self.every == Every::Week && !(1..=7).contains(&self.weekday) {
            return Err(CoreError::keyed(
                "weekday",
                "must be 1 (Monday) to 7 (Sunday)",
                "scheduleWeekday",
                &[],
            ));
        }
        if self.every == Every::Month && !(1..=31).contains(&self.day) {
            return Err(CoreError::keyed(
                "day",
                "must be a day of the month, 1 to 31",
                "scheduleDay",
                &[],
            ));
        }
        Ok(())
    }

    /// The time of day, parsed.
    pub fn clock(&self) -> CoreResult<NaiveTime> {
        NaiveTime::parse_from_str(self.time.trim(), "%H:%M").map_err(|_| {
            CoreError::keyed(
                "time",
                format!(
                    "must be a time of day as HH:MM (24 hours), got {:?}",
                    self.time
                ),
                "scheduleTime",
                &[("got", self.time.clone())],
            )
        })
    }

    /// Whether the schedule runs on the local day `d`.
    fn runs_on(&self, d: NaiveDate) -> bool {
        match self.every {
            Every::Day => true,
            Every::Week => d.weekday().number_from_monday() == u32::from(self.weekday),
            Every::Month => d.day() == u32::from(self.day).min(days_in_month(d)),
        }
    }
}

/// Days in `d`'s month.
fn days_in_month(d: NaiveDate) -> u32 {
    let first = d.with_day(1).unwrap_or(d);
    let next = first
        .checked_add_months(chrono::Months::new(1))
        .unwrap_or(first);
    u32::try_from((next - first).num_days()).unwrap_or(31)
}

/// The moment, UTC millis, of the local time `at` in `zone`: a time the clock skips is
/// taken with the offset before the change (moved on by the gap), a time it repeats at
/// its first occurrence.
pub fn instant(zone: &Zone, at: NaiveDateTime) -> Option<i64> {
    match zone {
        Zone::Fixed(o) => o
            .from_local_datetime(&at)
            .earliest()
            .map(|t| t.timestamp_millis()),
        Zone::Named(z) => match z.from_local_datetime(&at).earliest() {
            Some(t) => Some(t.timestamp_millis()),
            None => {
                // In a gap: the offset an hour or a few before it, as the clock read
                // then (no zone changes twice within six hours).
                let before = (1..=6).find_map(|h| {
                    z.from_local_datetime(&(at - chrono::Duration::hours(h)))
                        .earliest()
                })?;
                let offset = chrono::Offset::fix(before.offset()).local_minus_utc();
                Some(
                    (at - chrono::Duration::seconds(i64::from(offset)))
                        .and_utc()
                        .timestamp_millis(),
                )
            }
        },
    }
}

/// The local day of the moment `t` in `zone`.
fn local_day(zone: &Zone, t: i64) -> NaiveDate {
    chrono::DateTime::from_timestamp_millis(t)
        .map(|u| u.with_timezone(&zone.offset_at(t)).date_naive())
        .unwrap_or_default()
}

/// The moment the schedule is due on the local day `d`, if it runs that day.
fn due_on(c: &Cadence, time: NaiveTime, zone: &Zone, d: NaiveDate) -> Option<i64> {
    if !c.runs_on(d) {
        return None;
    }
    instant(zone, d.and_time(time))
}

/// The first moment after `t` (strictly) the schedule is due, UTC millis.
pub fn next_run_after(c: &Cadence, zone: &Zone, t: i64) -> CoreResult<i64> {
    c.validate()?;
    let time = c.clock()?;
    // A day back: a zone's day can start before `t`'s UTC day and a gap moves a time on.
    let mut d = local_day(zone, t).pred_opt().unwrap_or_default();
    // Every schedule runs at least once in 32 days; 400 is room to spare.
    for _ in 0..400 {
        if let Some(at) = due_on(c, time, zone, d)
            && at > t
        {
            return Ok(at);
        }
        d = d
            .succ_opt()
            .ok_or_else(|| CoreError::validation("time", "past the last day there is"))?;
    }
    Err(CoreError::internal("no run within 400 days"))
}

/// Every moment in `(t0, t1]` the schedule was due, oldest first (at most `limit`, the
/// newest kept when there are more: what a catch-up runs).
pub fn due_between(
    c: &Cadence,
    zone: &Zone,
    t0: i64,
    t1: i64,
    limit: usize,
) -> CoreResult<Vec<i64>> {
    c.validate()?;
    let time = c.clock()?;
    let mut out = Vec::new();
    if t1 <= t0 {
        return Ok(out);
    }
    let mut d = local_day(zone, t0).pred_opt().unwrap_or_default();
    let last = local_day(zone, t1).succ_opt().unwrap_or_default();
    while d <= last {
        if let Some(at) = due_on(c, time, zone, d)
            && at > t0
            && at <= t1
        {
            out.push(at);
            if out.len() > limit {
                out.remove(0);
            }
        }
        match d.succ_opt() {
            Some(n) => d = n,
            None => break,
        }
    }
    Ok(out)
}

/// The days (first and last, both included, in `zone`) a run due at `due` covers: the
/// whole period before the day it runs.
pub fn period_of(c: &Cadence, zone: &Zone, due: i64) -> (NaiveDate, NaiveDate) {
    let d = local_day(zone, due);
    let before = d.pred_opt().unwrap_or(d);
    match c.every {
        Every::Day => (before, before),
        Every::Week => (d - chrono::Duration::days(7), before),
        Every::Month => {
            let this = d.with_day(1).unwrap_or(d);
            let first = this
                .checked_sub_months(chrono::Months::new(1))
                .unwrap_or(this);
            (first, this.pred_opt().unwrap_or(this))
        }
    }
}

/// What a scheduled run writes.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ReportKind {
    /// The statement of the period (figures, then its orders).
    Statement,
    /// The orders of the period, every row (the Orders screen's export).
    Orders,
}

/// The file's format: the formats the reports write (PDF for a statement only).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FileFormat {
    Csv,
    Xlsx,
    Pdf,
}

impl FileFormat {
    pub fn extension(self) -> &'static str {
        match self {
            FileFormat::Csv => "csv",
            FileFormat::Xlsx => "xlsx",
            FileFormat::Pdf => "pdf",
        }
    }
}

/// A schedule as a person sets it.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleSpec {
    /// What the schedule is called; its files are named after it.
    pub name: String,
    pub report: ReportKind,
    pub format: FileFormat,
    pub cadence: Cadence,
    /// The folder the files go to (made when missing).
    pub folder: String,
    /// One currency, or every currency when empty.
    #[serde(default)]
    pub currency: String,
    /// Read the period again from the gateway before the file is written (a run fails
    /// when the gateway cannot be reached, rather than write stale figures).
    #[serde(default = "yes")]
    pub refresh: bool,
}

fn yes() -> bool {
    true
}

impl ScheduleSpec {
    /// Checked member by member.
    pub fn validate(&self) -> CoreResult<()> {
        let name = self.name.trim();
        if name.is_empty() || name.chars().count() > 80 {
            return Err(CoreError::keyed(
                "name",
                "must be 1 to 80 characters",
                "scheduleName",
                &[],
            ));
        }
        if self.report == ReportKind::Orders && self.format == FileFormat::Pdf {
            return Err(CoreError::keyed(
                "format",
                "an orders export is CSV or XLSX",
                "scheduleOrdersPdf",
                &[],
            ));
        }
        let folder = self.folder.trim();
        if folder.is_empty() || !std::path::Path::new(folder).is_absolute() {
            return Err(CoreError::keyed(
                "folder",
                "must be a full path to a folder",
                "scheduleFolder",
                &[],
            ));
        }
        if !self.currency.trim().is_empty() {
            paydesk_gateway::validate::currency("currency", self.currency.trim())?;
        }
        self.cadence.validate()
    }

    /// The file name of the run covering `first`..`last`, before any `_02` a second
    /// run of the same period adds: the name's letters and digits, then the period
    /// (`2026-11-26`, `2026-11-16_2026-11-22`, `2026-11`), so one schedule's files sort by
    /// period.
    pub fn file_name(&self, first: NaiveDate, last: NaiveDate, copy: u32) -> String {
        let mut slug = String::new();
        for ch in self.name.trim().chars() {
            if ch.is_alphanumeric() {
                slug.extend(ch.to_lowercase());
            } else if !slug.ends_with('-') && !slug.is_empty() {
                slug.push('-');
            }
        }
        let slug = slug.trim_end_matches('-');
        let slug = if slug.is_empty() { "report" } else { slug };
        let period = match self.cadence.every {
            Every::Day => first.format("%Y-%m-%d").to_string(),
            Every::Month if first.day() == 1 && last.month() == first.month() => {
                first.format("%Y-%m").to_string()
            }
            _ if first == last => first.format("%Y-%m-%d").to_string(),
            _ => format!("{}_{}", first.format("%Y-%m-%d"), last.format("%Y-%m-%d")),
        };
        let copy = if copy > 1 {
            format!("_{copy:02}")
        } else {
            String::new()
        };
        format!("{slug}-{period}{copy}.{}", self.format.extension())
    }
}

/// A schedule of a profile.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Schedule {
    pub id: u32,
    pub spec: ScheduleSpec,
    pub paused: bool,
    pub created_at: i64,
    /// Runs due up to this moment were taken (run, or recorded missed): runs due after
    /// it are the ones to come.
    pub checked_through: i64,
}

/// What started a run.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Trigger {
    /// At its time, by a running desk or worker (or `run-due` soon after).
    OnTime,
    /// Nothing ran at its time (the desk was closed): run when something next did.
    CatchUp,
    /// Someone asked (Run now, `paydesk schedule run --id`).
    Manual,
}

/// How a run ended.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RunOutcome {
    Running,
    Ok,
    Failed,
    /// Missed and not run (older than the catch-ups a start makes).
    Missed,
}

/// One run of a schedule, as recorded.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleRun {
    pub id: u64,
    pub schedule: u32,
    /// The schedule's name when it ran.
    pub name: String,
    pub trigger: Trigger,
    /// The moment it was due (none for a run someone asked for).
    pub due_at: Option<i64>,
    /// The days covered, YYYY-MM-DD, both included.
    pub first_day: String,
    pub last_day: String,
    pub started_at: i64,
    pub finished_at: Option<i64>,
    pub outcome: RunOutcome,
    /// The file written (full path).
    pub file: Option<String>,
    /// Orders in the file.
    pub rows: Option<u64>,
    /// Why it failed.
    pub error: Option<String>,
    /// Who ran it: `desk`, `worker` or `cli`.
    pub by: String,
    /// A person has seen it (off the Dashboard's attention list).
    #[serde(default)]
    pub acknowledged: bool,
}

/// A run later than this after its moment is a missed one caught up (the desk was not
/// running at its time); `run-due` from cron every few minutes stays within it.
pub const LATE_MS: i64 = 15 * 60_000;

/// At most this many missed runs of a schedule are caught up at once (the newest);
/// older ones are recorded missed, for a person to run by hand.
pub const CATCH_UP_MAX: usize = 7;

#[cfg(test)]
mod tests;
