//! The team desk: who the member is, the requests waiting for approval, approving and
//! rejecting them, making requests, the team's connection in Settings, and the idle
//! lock. The database decides what a member may do (roles, grants, row-level security,
//! four-eyes triggers); these commands only carry its answers.

use paydesk_api::team::PgConfig;
use paydesk_api::team::{Request, RequestRow, RequestState, Rule, Team, TeamRole};
use paydesk_core::forms::{CardForm, PayinForm, PayoutForm};
use paydesk_core::{CoreError, Desk};
use serde::Serialize;
use specta::Type;
use tauri::State;

use super::CmdResult;
use crate::state::{AppState, internal};

/// What the banner and the screens know of the member on a team desk.
#[derive(Debug, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TeamStatus {
    /// The member's database user.
    pub user: String,
    pub roles: Vec<TeamRole>,
    pub mer_no: i64,
    /// Minutes without activity after which the desk locks.
    pub idle_lock_minutes: i32,
    /// This desk holds the merchant key (a signer's desk): it talks to the gateway.
    pub holds_key: bool,
    pub host: String,
    pub port: u16,
    pub database: String,
    /// Why the team's audit chain failed this desk's check when it connected (cut or
    /// rewritten against the head this desk's keyring anchored); `None` when it held.
    /// The Team and Activity screens show it as an alert; such a desk signs nothing.
    pub chain_problem: Option<String>,
}

/// A request as the Approvals screen shows it.
#[derive(Debug, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RequestView {
    pub request: Request,
    /// The rule that asks its approvals, as the rules are now (none when no rule
    /// applies, or when the rules changed since it was made).
    pub rule: Option<Rule>,
    /// Distinct approvals by members other than the maker.
    pub approvals: u32,
    /// The member made it (and so may not approve it).
    pub mine: bool,
    /// The member already approved or rejected it.
    pub decided_by_me: bool,
}

/// What a connection test found.
#[derive(Debug, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TeamProbe {
    pub user: String,
    pub roles: Vec<TeamRole>,
    pub mer_no: i64,
    /// The team schema's version in the database.
    pub schema_version: i32,
    /// TLS is required (the host is not this machine).
    pub tls_required: bool,
}

/// The idle lock as the window needs it.
#[derive(Debug, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct LockState {
    pub locked: bool,
    /// The idle time when a desk the lock guards is open (a team desk, or a single desk
    /// holding a live key with a desk password); none otherwise.
    pub idle_lock_minutes: Option<u32>,
    /// The profile the lock guards.
    pub profile: Option<String>,
    /// It is a team profile: the member's database password unlocks it; otherwise the
    /// desk password does.
    pub team: bool,
}

fn not_team() -> CoreError {
    CoreError::validation(
        "team",
        "this profile is a single desk: approvals belong to a team profile (Settings, team connection)",
    )
}

/// The member's connection to the team, from the open desk (the database is asked on a
/// blocking thread: the link waits on the network).
async fn team_of(state: &State<'_, AppState>) -> CmdResult<(std::sync::Arc<Desk>, Team)> {
    let desk = state.desk().await?;
    let d = desk.clone();
    let team = tokio::task::spawn_blocking(move || Team::of(&d))
        .await
        .map_err(internal)??
        .ok_or_else(not_team)?;
    Ok((desk, team))
}

/// Runs `f` on the team on a blocking thread.
pub(crate) async fn with_team<T: Send + 'static>(
    state: &State<'_, AppState>,
    f: impl FnOnce(&Desk, &Team) -> CmdResult<T> + Send + 'static,
) -> CmdResult<T> {
    let (desk, team) = team_of(state).await?;
    tokio::task::spawn_blocking(move || f(&desk, &team))
        .await
        .map_err(internal)?
}

fn view(team: &Team, rules: &[Rule], request: Request) -> RequestView {
    let me = team.me().name.as_str();
    RequestView {
        rule: Team::rule_for(rules, &request).cloned(),
        approvals: u32::try_from(request.approvals()).unwrap_or(u32::MAX),
        mine: request.maker == me,
        decided_by_me: request.decisions.iter().any(|d| d.member == me),
        request,
    }
}

/// The member on a team desk; none on a single desk.
#[tauri::command]
#[specta::specta]
pub async fn team_status(state: State<'_, AppState>) -> CmdResult<Option<TeamStatus>> {
    let desk = state.desk().await?;
    let Some(cfg) = desk.profile.team.clone() else {
        return Ok(None);
    };
    let (desk, team) = team_of(&state).await?;
    Ok(Some(TeamStatus {
        user: team.me().name.clone(),
        roles: team.me().roles.clone(),
        mer_no: team.mer_no(),
        idle_lock_minutes: team.idle_lock_minutes(),
        holds_key: desk.holds_key(),
        host: cfg.host,
        port: cfg.port,
        database: cfg.database,
        chain_problem: desk.journal().team_chain_problem().map(str::to_string),
    }))
}

/// The key card numbers and tax ids are sealed to: as the team's database holds it, and
/// as this desk trusts it (a maker's desk seals nothing before its member trusted one).
#[derive(Debug, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SealKeyState {
    /// SHA-256 of the key the team's database holds (hex); none before a signer's desk
    /// published it.
    pub database: Option<String>,
    /// The fingerprint this desk trusts (kept in its keyring); none before its member
    /// trusted one.
    pub trusted: Option<String>,
}

#[tauri::command]
#[specta::specta]
pub async fn team_seal_key(state: State<'_, AppState>) -> CmdResult<SealKeyState> {
    with_team(&state, move |desk, team| {
        Ok(SealKeyState {
            database: team.seal_key_fingerprint()?,
            trusted: desk.secrets().seal_key_pin(&desk.profile.name)?,
        })
    })
    .await
}

/// Trusts on this desk the seal key the team's database holds, if its fingerprint is
/// the one the member was given (`fingerprint`: hex, 16 digits at least, or as a
/// signer's key shows it, `SHA256:aa:bb:…`). Returns the trusted fingerprint.
#[tauri::command]
#[specta::specta]
pub async fn team_trust_seal_key(
    state: State<'_, AppState>,
    fingerprint: String,
) -> CmdResult<String> {
    with_team(&state, move |_, team| {
        if fingerprint.trim().is_empty() {
            return Err(CoreError::validation(
                "fingerprint",
                "the fingerprint a signer or the database's owner gave you: compare before trusting",
            ));
        }
        team.trust_seal_key(Some(&fingerprint))
    })
    .await
}

/// Requests in the given states (every state when empty), newest first.
#[tauri::command]
#[specta::specta]
pub async fn team_requests(
    state: State<'_, AppState>,
    states: Vec<RequestState>,
    limit: u32,
) -> CmdResult<Vec<RequestView>> {
    with_team(&state, move |_, team| {
        let rules = team.rules()?;
        Ok(team
            .requests(&states, i64::from(limit.clamp(1, 1000)))?
            .into_iter()
            .map(|r| view(team, &rules, r))
            .collect())
    })
    .await
}

/// One request with its rows (masked beneficiaries, never a card number).
#[derive(Debug, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct RequestDetail {
    pub view: RequestView,
    pub rows: Vec<RequestRow>,
}

#[tauri::command]
#[specta::specta]
pub async fn team_request(state: State<'_, AppState>, id: i64) -> CmdResult<RequestDetail> {
    with_team(&state, move |_, team| {
        let rules = team.rules()?;
        let request = team.request(id)?;
        Ok(RequestDetail {
            view: view(team, &rules, request),
            rows: team.rows(id)?,
        })
    })
    .await
}

/// Approves a request (approvers only, never the maker: the database refuses).
#[tauri::command]
#[specta::specta]
pub async fn team_approve(state: State<'_, AppState>, id: i64) -> CmdResult<RequestView> {
    with_team(&state, move |_, team| {
        let r = team.approve(id)?;
        Ok(view(team, &team.rules()?, r))
    })
    .await
}

/// Rejects a request with the reason (3 characters at least).
#[tauri::command]
#[specta::specta]
pub async fn team_reject(
    state: State<'_, AppState>,
    id: i64,
    reason: String,
) -> CmdResult<RequestView> {
    with_team(&state, move |_, team| {
        let r = team.reject(id, &reason)?;
        Ok(view(team, &team.rules()?, r))
    })
    .await
}

/// Requests a CLABE payout for approval (makers): its number is fixed now; a signer
/// executes it once the approvals the rules ask are in.
#[tauri::command]
#[specta::specta]
pub async fn team_request_payout(
    state: State<'_, AppState>,
    form: PayoutForm,
) -> CmdResult<RequestView> {
    with_team(&state, move |_, team| {
        let r = team.request_payout(&form)?;
        Ok(view(team, &team.rules()?, r))
    })
    .await
}

/// Requests a payin for approval (makers): once a signer creates it, the row's message
/// carries the payment link for the customer.
#[tauri::command]
#[specta::specta]
pub async fn team_request_payin(
    state: State<'_, AppState>,
    form: PayinForm,
) -> CmdResult<RequestView> {
    with_team(&state, move |_, team| {
        let r = team.request_payin(&form)?;
        Ok(view(team, &team.rules()?, r))
    })
    .await
}

/// Requests a card's top-up or withdrawal for approval (makers).
#[tauri::command]
#[specta::specta]
pub async fn team_request_card(
    state: State<'_, AppState>,
    form: CardForm,
) -> CmdResult<RequestView> {
    with_team(&state, move |_, team| {
        let r = team.request_card(&form)?;
        Ok(view(team, &team.rules()?, r))
    })
    .await
}

/// Requests a bulk payout file for approval as one batch (makers).
#[tauri::command]
#[specta::specta]
pub async fn team_request_bulk(
    state: State<'_, AppState>,
    path: String,
    purpose: Option<paydesk_core::purpose::Purpose>,
) -> CmdResult<RequestView> {
    let p = super::money::bulk_path(&path)?;
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let bytes = paydesk_core::input::read_file_rule(&p, paydesk_core::input::MAX_DOCUMENT_BYTES)
        .map_err(|rule| CoreError::validation("path", rule))?;
    with_team(&state, move |_, team| {
        // The batch's purpose (issue 35) for the rows whose file gives none.
        let r = team.request_bulk_for(&name, &bytes, &purpose.unwrap_or_default())?;
        Ok(view(team, &team.rules()?, r))
    })
    .await
}

/// Tests a team connection before it is saved: connects as the member with `password`
/// (or, when empty, the password the keyring keeps for `profile`) and says who the
/// database says the member is.
#[tauri::command]
#[specta::specta]
pub async fn team_test(
    state: State<'_, AppState>,
    profile: String,
    config: PgConfig,
    password: String,
) -> CmdResult<TeamProbe> {
    state.unlocked()?;
    let password = zeroize::Zeroizing::new(if password.is_empty() {
        // The kept password goes only to the database it was kept for: a test of other
        // settings must be given the password (a server elsewhere could ask for it in
        // the clear).
        if state.home().get(&profile).ok().and_then(|p| p.team) != Some(config.clone()) {
            return Err(CoreError::validation(
                "team.password",
                "give the password to test these settings: the one kept in the keyring is for the saved connection only",
            ));
        }
        state
            .secrets()?
            .team_password(&profile)?
            .expose()
            .to_string()
    } else {
        password
    });
    tokio::task::spawn_blocking(move || {
        let paydesk_api::team::Probe {
            team,
            schema_version,
        } = paydesk_api::team::probe(&config, &password)?;
        Ok(TeamProbe {
            user: team.me().name.clone(),
            roles: team.me().roles.clone(),
            mer_no: team.mer_no(),
            schema_version,
            tls_required: !config.is_loopback(),
        })
    })
    .await
    .map_err(internal)?
}

/// What creating or upgrading the team's schema did.
#[derive(Debug, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TeamInitDone {
    /// Migrations applied now (0: it was up to date).
    pub applied: u32,
    /// Grants the owner lacks to end members' stalling sessions (empty: none).
    pub missing_grants: Vec<String>,
}

/// Creates or upgrades the team's schema in the database of `config`, connecting as its
/// owner with `password` (used once, never kept), for the saved profile's merchant:
/// `paydesk team init` from the window (`paydesk_api::team::init`).
#[tauri::command]
#[specta::specta]
pub async fn team_init(
    state: State<'_, AppState>,
    profile: String,
    config: PgConfig,
    password: String,
) -> CmdResult<TeamInitDone> {
    state.unlocked()?;
    let password = zeroize::Zeroizing::new(password);
    if password.is_empty() {
        return Err(CoreError::keyed(
            "team.password",
            "the database owner's password: it is used once and never kept",
            "ownerPasswordOnce",
            &[],
        ));
    }
    let mer_no = state.home().get(&profile)?.mer_no as i64;
    let done =
        tokio::task::spawn_blocking(move || paydesk_api::team::init(&config, &password, mer_no))
            .await
            .map_err(internal)??;
    Ok(TeamInitDone {
        applied: u32::try_from(done.applied).unwrap_or(u32::MAX),
        missing_grants: done.missing_grants,
    })
}

/// Keeps the member's database password in the keyring.
#[tauri::command]
#[specta::specta]
pub async fn team_password_set(
    state: State<'_, AppState>,
    profile: String,
    password: String,
) -> CmdResult<()> {
    let password = zeroize::Zeroizing::new(password);
    state.home().get(&profile)?;
    state.secrets()?.set_team_password(&profile, &password)?;
    state.close_if(&profile).await;
    Ok(())
}

/// The member did something in the window (sent at most every few seconds).
#[tauri::command]
#[specta::specta]
pub fn session_touch(state: State<'_, AppState>) -> CmdResult<LockState> {
    let touched = state.touch();
    let lock = lock_state(&state);
    touched.map(|()| lock)
}

fn lock_state(state: &AppState) -> LockState {
    let (locked, minutes) = state.lock_state();
    let guards = state.lock_guards();
    LockState {
        locked,
        idle_lock_minutes: minutes.map(|m| u32::try_from(m).unwrap_or(u32::MAX)),
        team: guards.as_ref().is_some_and(|g| g.1),
        profile: guards.map(|g| g.0),
    }
}

/// The lock's state, with no side effect (what the window asks when it starts: a desk
/// that was locked when the app quit starts locked).
#[tauri::command]
#[specta::specta]
pub fn session_state(state: State<'_, AppState>) -> LockState {
    lock_state(&state)
}

/// Locks the team desk now (the window's idle timer ran out, or the member asked).
#[tauri::command]
#[specta::specta]
pub async fn session_lock(state: State<'_, AppState>) -> CmdResult<LockState> {
    state.lock_now().await;
    Ok(lock_state(&state))
}

/// Unlocks the team desk with the member's database password.
#[tauri::command]
#[specta::specta]
pub async fn session_unlock(state: State<'_, AppState>, password: String) -> CmdResult<LockState> {
    state.unlock(&password).await?;
    Ok(lock_state(&state))
}
