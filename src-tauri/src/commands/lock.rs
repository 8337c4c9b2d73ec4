//! The desk's idle lock as Settings shows it: a single desk's idle time and its desk
//! password (a team desk's idle time is the team's, its password the member's).

use serde::Serialize;
use specta::Type;
use tauri::State;

use super::CmdResult;
use crate::state::AppState;

/// The lock of the active profile's desk.
#[derive(Debug, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct DeskLockSettings {
    /// The profile is a single desk holding a live profile's merchant key: its own
    /// idle lock applies.
    pub applies: bool,
    /// A desk password is set (the lock guards the desk only once one is).
    pub password_set: bool,
    /// A single desk's idle time in minutes.
    pub idle_minutes: u32,
}

#[tauri::command]
#[specta::specta]
pub async fn desk_lock_settings(state: State<'_, AppState>) -> CmdResult<DeskLockSettings> {
    let desk = state.desk().await?;
    let applies = desk.profile.team.is_none() && !desk.profile.is_sandbox() && desk.holds_key();
    Ok(DeskLockSettings {
        applies,
        password_set: desk.secrets().has_desk_password(&desk.profile.name)?,
        idle_minutes: state.lock_record().idle_minutes(),
    })
}

/// Sets a single desk's idle time (1 to 60 minutes).
#[tauri::command]
#[specta::specta]
pub async fn desk_lock_minutes_set(state: State<'_, AppState>, minutes: u32) -> CmdResult<()> {
    state.unlocked()?;
    state.set_idle_minutes(minutes).await
}

/// Sets the active profile's desk password; a password already set must be given
/// (`current`) to change it.
#[tauri::command]
#[specta::specta]
pub async fn desk_password_set(
    state: State<'_, AppState>,
    current: String,
    password: String,
) -> CmdResult<()> {
    let current = zeroize::Zeroizing::new(current);
    let password = zeroize::Zeroizing::new(password);
    let desk = state.desk().await?;
    let name = desk.profile.name.clone();
    let secrets = desk.secrets().clone();
    tokio::task::spawn_blocking(move || {
        if secrets.has_desk_password(&name)? && !secrets.check_desk_password(&name, &current)? {
            return Err(paydesk_core::CoreError::validation(
                "current",
                "not this desk's password",
            ));
        }
        secrets.set_desk_password(&name, &password)
    })
    .await
    .map_err(crate::state::internal)??;
    // The desk reopens with its lock on.
    state.close().await;
    Ok(())
}
