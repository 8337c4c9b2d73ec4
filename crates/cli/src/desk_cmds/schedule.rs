//! `paydesk schedule`: scheduled reports of a profile (the app's Reports → Schedules):
//! list, add, pause, resume, remove, run one now, and `run-due` for cron on a machine
//! where no desk or worker runs at the schedules' times.

use super::*;
use paydesk_core::schedule::{
    Cadence, Every, FileFormat, ReportKind, RunOutcome, Schedule, ScheduleRun, ScheduleSpec,
    Trigger, next_run_after,
};

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ReportArg {
    Statement,
    Orders,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum FormatArg {
    Csv,
    Xlsx,
    Pdf,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum EveryArg {
    Day,
    Week,
    Month,
}

#[derive(Debug, Subcommand)]
pub enum ScheduleCmd {
    /// The profile's schedules: when each runs next (in the business zone), where its
    /// files go, and how its last run ended.
    List,
    /// Adds a schedule. A daily run covers the day before, a weekly run the 7 days
    /// before, a monthly run the month before, in the profile's business zone (`paydesk
    /// report settings --zone`).
    Add {
        /// Its name; the files are named after it and their period.
        #[arg(long)]
        name: String,
        #[arg(long, value_enum, default_value = "statement")]
        report: ReportArg,
        #[arg(long, value_enum, default_value = "xlsx")]
        format: FormatArg,
        #[arg(long, value_enum)]
        every: EveryArg,
        /// For --every week: 1 (Monday) to 7 (Sunday).
        #[arg(long, default_value_t = 1)]
        weekday: u8,
        /// For --every month: 1 to 31 (a month without the day runs on its last day).
        #[arg(long, default_value_t = 1)]
        day: u8,
        /// The time of day, HH:MM (24 hours), in the business zone.
        #[arg(long)]
        at: String,
        /// The folder the files go to (a full path; made when missing).
        #[arg(long)]
        folder: PathBuf,
        /// One currency (default: every currency).
        #[arg(long, default_value = "")]
        currency: String,
        /// Write from the local cache as it is, without reading the period again first.
        #[arg(long)]
        offline: bool,
    },
    /// Pauses a schedule: nothing runs and nothing is missed until it is resumed.
    Pause { id: u32 },
    /// Resumes a paused schedule (from now on).
    Resume { id: u32 },
    /// Removes a schedule (its files stay).
    Remove { id: u32 },
    /// Runs a schedule now, for the last whole period before now.
    Run { id: u32 },
    /// Runs every schedule due and not run yet (those missed while nothing ran are caught
    /// up, the newest 7 of each). Exit 5 when a run failed. For cron, every few minutes,
    /// on a machine where no desk or worker runs at the schedules' times.
    RunDue,
}

fn profile_name(g: &Global) -> Result<String, Failure> {
    match &g.profile {
        Some(p) => Ok(p.clone()),
        None => Ok(session()?.active_profile()?),
    }
}

pub fn schedule(cmd: ScheduleCmd, g: &Global) -> Result<(), Failure> {
    let s = session()?;
    let home = s.home().clone();
    let now = paydesk_core::store::now_ms();
    match cmd {
        ScheduleCmd::List => {
            let name = profile_name(g)?;
            let zone = home.reporting(&name)?.zone();
            let book = home.schedules(&name)?;
            #[derive(Serialize)]
            #[serde(rename_all = "camelCase")]
            struct Listed<'a> {
                schedule: &'a Schedule,
                next_run: Option<i64>,
                last_run: Option<&'a ScheduleRun>,
            }
            let listed: Vec<Listed> = book
                .schedules
                .iter()
                .map(|s| Listed {
                    schedule: s,
                    next_run: (!s.paused)
                        .then(|| {
                            next_run_after(&s.spec.cadence, &zone, now.max(s.checked_through)).ok()
                        })
                        .flatten(),
                    last_run: book.last_run(s.id),
                })
                .collect();
            print(g, &listed, || {
                if listed.is_empty() {
                    return "no schedules (paydesk schedule add)".into();
                }
                listed
                    .iter()
                    .map(|l| {
                        let s = l.schedule;
                        let next = match l.next_run {
                            Some(t) => format!("next {}", zone.format(t, "%Y-%m-%d %H:%M %Z")),
                            None => "paused".into(),
                        };
                        let last = l.last_run.map_or("never run".to_string(), run_line);
                        format!(
                            "#{} {} — {} {} {}, {} → {}\n    {next}; last: {last}",
                            s.id,
                            s.spec.name,
                            report_word(s.spec.report),
                            s.spec.format.extension(),
                            cadence_words(&s.spec.cadence),
                            zone.name(),
                            s.spec.folder
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        }
        ScheduleCmd::Add {
            name,
            report,
            format,
            every,
            weekday,
            day,
            at,
            folder,
            currency,
            offline,
        } => {
            let profile = profile_name(g)?;
            let folder = std::path::absolute(&folder).unwrap_or(folder);
            let spec = ScheduleSpec {
                name,
                report: match report {
                    ReportArg::Statement => ReportKind::Statement,
                    ReportArg::Orders => ReportKind::Orders,
                },
                format: match format {
                    FormatArg::Csv => FileFormat::Csv,
                    FormatArg::Xlsx => FileFormat::Xlsx,
                    FormatArg::Pdf => FileFormat::Pdf,
                },
                cadence: Cadence {
                    every: match every {
                        EveryArg::Day => Every::Day,
                        EveryArg::Week => Every::Week,
                        EveryArg::Month => Every::Month,
                    },
                    weekday,
                    day,
                    time: at,
                },
                folder: folder.display().to_string(),
                currency,
                refresh: !offline,
            };
            let s = home.add_schedule(&profile, spec, now)?;
            print(g, &s, || format!("schedule #{} added", s.id))
        }
        ScheduleCmd::Pause { id } | ScheduleCmd::Resume { id } => {
            let paused = matches!(cmd, ScheduleCmd::Pause { .. });
            let s = home.pause_schedule(&profile_name(g)?, id, paused, now)?;
            print(g, &s, || {
                format!(
                    "schedule #{id} {}",
                    if paused { "paused" } else { "resumed" }
                )
            })
        }
        ScheduleCmd::Remove { id } => {
            home.remove_schedule(&profile_name(g)?, id)?;
            print(g, &id, || format!("schedule #{id} removed"))
        }
        ScheduleCmd::Run { id } => {
            let rt = runtime()?;
            let run = rt.block_on(async {
                let desk = open(g).await?;
                Ok::<_, Failure>(
                    paydesk_reports::schedule::run_now(desk.desk(), &home, id, now, "cli").await?,
                )
            })?;
            print(g, &run, || run_line(&run))?;
            failed(std::slice::from_ref(&run))
        }
        ScheduleCmd::RunDue => {
            let rt = runtime()?;
            let runs = rt.block_on(async {
                let desk = open(g).await?;
                let by = paydesk_api::duties::By::Cli;
                Ok::<_, Failure>(paydesk_api::duties::reports_if_due(desk.desk(), &home, by).await?)
            })?;
            print(g, &runs, || {
                if runs.is_empty() {
                    return "nothing due".into();
                }
                runs.iter().map(run_line).collect::<Vec<_>>().join("\n")
            })?;
            failed(&runs)
        }
    }
}

/// Exit 5 when a run failed (cron mails it).
fn failed(runs: &[ScheduleRun]) -> Result<(), Failure> {
    let n = runs
        .iter()
        .filter(|r| r.outcome == RunOutcome::Failed)
        .count();
    if n > 0 {
        return Err(Failure::Other(format!("{n} scheduled report(s) failed")));
    }
    Ok(())
}

fn report_word(r: ReportKind) -> &'static str {
    match r {
        ReportKind::Statement => "statement",
        ReportKind::Orders => "orders export",
    }
}

fn cadence_words(c: &Cadence) -> String {
    const DAYS: [&str; 7] = [
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
    ];
    match c.every {
        Every::Day => format!("daily at {}", c.time),
        Every::Week => format!(
            "weekly on {} at {}",
            DAYS.get(usize::from(c.weekday.saturating_sub(1)))
                .unwrap_or(&"?"),
            c.time
        ),
        Every::Month => format!("monthly on day {} at {}", c.day, c.time),
    }
}

pub(super) fn run_line(r: &ScheduleRun) -> String {
    let days = if r.first_day == r.last_day {
        r.first_day.clone()
    } else {
        format!("{} to {}", r.first_day, r.last_day)
    };
    let how = match r.trigger {
        Trigger::OnTime => "",
        Trigger::CatchUp => " (missed at its time, caught up)",
        Trigger::Manual => " (run by hand)",
    };
    match r.outcome {
        RunOutcome::Ok => format!(
            "{} {days}{how}: ok, {} orders → {}",
            r.name,
            r.rows.unwrap_or(0),
            r.file.as_deref().unwrap_or("")
        ),
        RunOutcome::Failed => format!(
            "{} {days}{how}: FAILED: {}",
            r.name,
            r.error.as_deref().unwrap_or("")
        ),
        RunOutcome::Missed => format!("{} {days}: MISSED, not run", r.name),
        RunOutcome::Running => format!("{} {days}{how}: running", r.name),
    }
}
