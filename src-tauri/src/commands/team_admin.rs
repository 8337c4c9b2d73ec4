//! The team screen: members, roles and rules as an admin keeps them, and the signer's
//! worker run from the window. Each command calls the same core function as the CLI's
//! `paydesk team user ...`, `team rules ...` and `team worker`; the database decides who
//! may (a refusal comes back as the database said it).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use paydesk_api::team::{self, Executed, Member, Rule, RuleInput, TeamRole};
use paydesk_core::CoreError;
use serde::Serialize;
use specta::Type;
use tauri::State;

use super::CmdResult;
use super::team::with_team;
use crate::state::{AppState, internal};

/// The team's rules and the approvals a request no rule names needs.
#[derive(Debug, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TeamRules {
    pub rules: Vec<Rule>,
    pub default_approvals: i32,
}

#[tauri::command]
#[specta::specta]
pub async fn team_members(state: State<'_, AppState>) -> CmdResult<Vec<Member>> {
    with_team(&state, |_, t| t.members()).await
}

/// Adds a member with one role (admins); answers with what the member holds.
#[tauri::command]
#[specta::specta]
pub async fn team_member_add(
    state: State<'_, AppState>,
    name: String,
    role: TeamRole,
    password: String,
) -> CmdResult<String> {
    let password = zeroize::Zeroizing::new(password);
    with_team(&state, move |_, t| {
        t.add_member(name.trim(), role, &password)
    })
    .await
}

/// Gives a member exactly `roles` (admins); answers with what the member holds now.
#[tauri::command]
#[specta::specta]
pub async fn team_member_roles(
    state: State<'_, AppState>,
    name: String,
    roles: Vec<TeamRole>,
) -> CmdResult<String> {
    with_team(&state, move |_, t| t.set_member_roles(&name, &roles)).await
}

/// Sets a member's password, a step of its own in the audit log (admins).
#[tauri::command]
#[specta::specta]
pub async fn team_member_password(
    state: State<'_, AppState>,
    name: String,
    password: String,
) -> CmdResult<()> {
    let password = zeroize::Zeroizing::new(password);
    with_team(&state, move |_, t| {
        t.reset_member_password(&name, &password)
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn team_member_remove(state: State<'_, AppState>, name: String) -> CmdResult<()> {
    with_team(&state, move |_, t| t.remove_member(&name)).await
}

#[tauri::command]
#[specta::specta]
pub async fn team_rules(state: State<'_, AppState>) -> CmdResult<TeamRules> {
    with_team(&state, |_, t| {
        Ok(TeamRules {
            rules: t.rules()?,
            default_approvals: t.default_approvals()?,
        })
    })
    .await
}

/// Adds a rule or changes an existing one's approvals (admins).
#[tauri::command]
#[specta::specta]
pub async fn team_rule_set(state: State<'_, AppState>, rule: RuleInput) -> CmdResult<Rule> {
    // Its own rules first: a wrong threshold is named before the database is asked.
    rule.check()?;
    with_team(&state, move |_, t| t.set_rule(&rule)).await
}

#[tauri::command]
#[specta::specta]
pub async fn team_rule_remove(state: State<'_, AppState>, id: i64) -> CmdResult<()> {
    with_team(&state, move |_, t| t.remove_rule(id)).await
}

/// Every member's payout limits (issue 35), held by the team's database.
#[tauri::command]
#[specta::specta]
pub async fn team_limits(state: State<'_, AppState>) -> CmdResult<Vec<team::MemberLimit>> {
    with_team(&state, |_, t| t.member_limits()).await
}

/// Sets a member's payout limits in a currency (admins; both empty clears them).
#[tauri::command]
#[specta::specta]
pub async fn team_limit_set(state: State<'_, AppState>, limit: team::MemberLimit) -> CmdResult<()> {
    with_team(&state, move |_, t| t.set_member_limit(&limit)).await
}

/// The approvals a request no rule names needs (admins).
#[tauri::command]
#[specta::specta]
pub async fn team_default_set(state: State<'_, AppState>, approvals: i32) -> CmdResult<()> {
    with_team(&state, move |_, t| t.set_default_approvals(approvals)).await
}

/// Where the signer's worker in the window stands.
#[derive(Debug, Clone, Default, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct WorkerStatus {
    pub running: bool,
    /// A stop was asked; the worker ends its current request first.
    pub stopping: bool,
    /// The profile it works for.
    pub profile: Option<String>,
    /// UTC millis.
    pub started_at: Option<i64>,
    /// Requests executed since it started (a request given back with rows still
    /// unknown counts each time it is taken up).
    pub requests: u32,
    pub accepted: u32,
    pub rejected: u32,
    pub failed: u32,
    pub unknown: u32,
    /// The latest executions, newest first (20 at most).
    pub recent: Vec<Executed>,
    /// The last error of a round (the worker goes on).
    pub last_error: Option<String>,
    /// Why it ended, when it ended on its own.
    pub ended: Option<String>,
    /// The settings it runs with (the defaults until it is first started).
    pub settings: WorkerSettings,
}

/// The signer's worker's settings, as `paydesk team worker` takes them
/// (`paydesk_api::team::WorkerOptions`, which checks them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct WorkerSettings {
    /// How often it looks for approved requests besides the database's notifications
    /// (seconds, 1 to 3600).
    pub poll_secs: u32,
    /// Minutes between syncs of the team's orders and balance snapshots (0: never, up
    /// to 1440).
    pub sync_every_mins: u32,
    /// The days each of those syncs covers (1 to 3660).
    pub sync_days: u32,
}

impl Default for WorkerSettings {
    fn default() -> Self {
        let d = paydesk_api::team::WorkerOptions::default();
        Self {
            poll_secs: u32::try_from(d.poll_secs).unwrap_or(u32::MAX),
            sync_every_mins: u32::try_from(d.sync_every_mins).unwrap_or(u32::MAX),
            sync_days: u32::try_from(d.sync_days).unwrap_or(u32::MAX),
        }
    }
}

impl WorkerSettings {
    fn options(self) -> paydesk_api::team::WorkerOptions {
        paydesk_api::team::WorkerOptions {
            poll_secs: u64::from(self.poll_secs),
            sync_every_mins: u64::from(self.sync_every_mins),
            sync_days: i64::from(self.sync_days),
        }
    }
}

/// The worker run from the window, one at a time (managed beside the app's state).
#[derive(Debug, Default)]
pub struct Worker {
    status: Arc<Mutex<WorkerStatus>>,
    stop: Mutex<Option<Arc<AtomicBool>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[tauri::command]
#[specta::specta]
pub fn team_worker_status(
    state: State<'_, AppState>,
    worker: State<'_, Worker>,
) -> CmdResult<WorkerStatus> {
    state.unlocked()?;
    Ok(lock(&worker.status).clone())
}

/// Starts the signer's worker (`paydesk team worker`) for the open team desk: it
/// executes approved requests as they come until stopped or the app quits. Signers
/// only, on a desk that holds the merchant key. `settings` none: the defaults.
#[tauri::command]
#[specta::specta]
pub async fn team_worker_start(
    state: State<'_, AppState>,
    worker: State<'_, Worker>,
    settings: Option<WorkerSettings>,
) -> CmdResult<WorkerStatus> {
    if lock(&worker.status).running {
        return Ok(lock(&worker.status).clone());
    }
    let settings = settings.unwrap_or_default();
    let options = settings.options();
    options.check()?;
    let desk = state.desk().await?;
    if desk.profile.team.is_none() {
        return Err(CoreError::validation(
            "team",
            "the worker runs on a team profile",
        ));
    }
    if !desk.holds_key() {
        return Err(CoreError::validation(
            "team",
            "this desk holds no merchant key: only a signer's desk runs the worker",
        ));
    }
    let (home, secrets) = (state.home().clone(), state.secrets()?);
    let name = desk.profile.name.clone();
    // A connection of its own: the worker waits on the team's notifications on it.
    let t = tokio::task::spawn_blocking(move || paydesk_api::team::connect(&home, secrets, &name))
        .await
        .map_err(internal)??;
    if !t.has_role(TeamRole::Signer) {
        return Err(CoreError::validation(
            "team",
            format!(
                "{} is not a signer of the team: only signers execute requests",
                t.me().name
            ),
        ));
    }
    let stop = Arc::new(AtomicBool::new(false));
    *lock(&worker.stop) = Some(stop.clone());
    {
        let mut s = lock(&worker.status);
        *s = WorkerStatus {
            running: true,
            profile: Some(desk.profile.name.clone()),
            started_at: Some(chrono::Utc::now().timestamp_millis()),
            settings,
            ..WorkerStatus::default()
        };
    }
    let status = worker.status.clone();
    // Between requests, the team's orders synced and the balances snapshotted, as
    // `paydesk team worker` does, so members' desks show them.
    let (poll, keep) = (options.poll(), options.upkeep());
    // A thread and a runtime of its own: the worker's waits never hold the window's.
    std::thread::Builder::new()
        .name("team-worker".into())
        .spawn(move || {
            let ended = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt.block_on(team::work(&desk, &t, &stop, poll, keep, |event| {
                    let mut s = lock(&status);
                    match event {
                        team::WorkEvent::Executed(e) => {
                            s.requests += 1;
                            s.accepted += e.accepted;
                            s.rejected += e.rejected;
                            s.failed += e.failed;
                            s.unknown += e.unknown;
                            s.recent.insert(0, e.clone());
                            s.recent.truncate(20);
                            s.last_error = None;
                        }
                        team::WorkEvent::Upkeep(_) => {}
                        team::WorkEvent::Error(e) => s.last_error = Some(e.to_string()),
                    }
                })),
                Err(e) => Err(internal(e)),
            };
            let mut s = lock(&status);
            s.running = false;
            s.stopping = false;
            s.ended = ended.err().map(|e| e.to_string());
        })
        .map_err(internal)?;
    Ok(lock(&worker.status).clone())
}

/// Asks the worker to stop once its current request is done.
#[tauri::command]
#[specta::specta]
pub fn team_worker_stop(
    state: State<'_, AppState>,
    worker: State<'_, Worker>,
) -> CmdResult<WorkerStatus> {
    state.unlocked()?;
    if let Some(stop) = lock(&worker.stop).take() {
        stop.store(true, Ordering::Relaxed);
        let mut s = lock(&worker.status);
        if s.running {
            s.stopping = true;
        }
    }
    Ok(lock(&worker.status).clone())
}
