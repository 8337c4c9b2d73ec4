//! Reports → Schedules: the open profile's scheduled reports (add, edit, pause, remove,
//! run now) and their runs; the same calls as `paydesk schedule`. The app runs what falls
//! due while its desk is open (`AppState::reports_if_due`).

use paydesk_core::schedule::{Schedule, ScheduleRun, ScheduleSpec, next_run_after};
use serde::Serialize;
use specta::Type;
use tauri::State;

use super::CmdResult;
use crate::state::AppState;

/// A schedule with when it runs next and how its last run ended.
#[derive(Debug, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleView {
    pub schedule: Schedule,
    /// UTC millis; none while paused.
    pub next_run: Option<i64>,
    pub last_run: Option<ScheduleRun>,
}

/// The profile's schedules and its latest runs.
#[derive(Debug, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct Schedules {
    /// The business zone the times are in.
    pub zone: String,
    pub schedules: Vec<ScheduleView>,
    /// The newest runs first (at most 50).
    pub runs: Vec<ScheduleRun>,
}

#[tauri::command]
#[specta::specta]
pub async fn schedules(state: State<'_, AppState>) -> CmdResult<Schedules> {
    let desk = state.desk().await?;
    let zone = desk.orders().reporting().zone();
    let now = desk.now_ms();
    let book = state.home().schedules(&desk.profile.name)?;
    let schedules = book
        .schedules
        .iter()
        .map(|s| ScheduleView {
            schedule: s.clone(),
            next_run: (!s.paused)
                .then(|| next_run_after(&s.spec.cadence, &zone, now.max(s.checked_through)).ok())
                .flatten(),
            last_run: book.last_run(s.id).cloned(),
        })
        .collect();
    Ok(Schedules {
        zone: zone.name(),
        schedules,
        runs: book.runs.iter().rev().take(50).cloned().collect(),
    })
}

/// Adds a schedule (`id` none) or changes one; checked field by field.
#[tauri::command]
#[specta::specta]
pub async fn schedule_save(
    state: State<'_, AppState>,
    id: Option<u32>,
    spec: ScheduleSpec,
) -> CmdResult<Schedule> {
    let desk = state.desk().await?;
    let now = desk.now_ms();
    match id {
        None => state.home().add_schedule(&desk.profile.name, spec, now),
        Some(id) => state
            .home()
            .edit_schedule(&desk.profile.name, id, spec, now),
    }
}

/// Pauses or resumes a schedule.
#[tauri::command]
#[specta::specta]
pub async fn schedule_pause(
    state: State<'_, AppState>,
    id: u32,
    paused: bool,
) -> CmdResult<Schedule> {
    let desk = state.desk().await?;
    state
        .home()
        .pause_schedule(&desk.profile.name, id, paused, desk.now_ms())
}

/// Removes a schedule (its files stay).
#[tauri::command]
#[specta::specta]
pub async fn schedule_remove(state: State<'_, AppState>, id: u32) -> CmdResult<()> {
    let desk = state.desk().await?;
    state.home().remove_schedule(&desk.profile.name, id)
}

/// Runs a schedule now, for the last whole period before now; answers the run as
/// recorded (ok with its file, or failed with the error).
#[tauri::command]
#[specta::specta]
pub async fn schedule_run_now(state: State<'_, AppState>, id: u32) -> CmdResult<ScheduleRun> {
    let desk = state.desk().await?;
    let now = desk.now_ms();
    paydesk_reports::schedule::run_now(&desk, state.home(), id, now, "desk").await
}

/// Marks runs seen: off the Dashboard's attention list.
#[tauri::command]
#[specta::specta]
pub async fn schedule_runs_seen(state: State<'_, AppState>, ids: Vec<u64>) -> CmdResult<()> {
    let desk = state.desk().await?;
    state.home().acknowledge_runs(&desk.profile.name, &ids)
}
