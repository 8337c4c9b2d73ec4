//! Alerts (issue 35 item 4): the inbox's list, read and dismissed, the profile's
//! thresholds, and the system's notifications. What is an alert, and which are notified
//! when (once each, never in the quiet hours), is the engine's (`paydesk_core::alerts`);
//! the window words a notification in its language and this shows it through the
//! notification plugin, from Rust (the web view has no notification permission).

use paydesk_core::alerts::{Alert, AlertSettings};
use tauri::State;

use super::CmdResult;
use crate::state::AppState;

/// Shows a system notification (title, body): the notification plugin in the app,
/// nothing in tests that build the app without a window.
pub struct Notifier(pub Box<ShowNotification>);

/// Shows a notification with its title and body; why not, if it could not.
pub type ShowNotification = dyn Fn(&str, &str) -> Result<(), String> + Send + Sync;

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Notifier")
    }
}

impl Default for Notifier {
    fn default() -> Self {
        Notifier(Box::new(|_, _| Ok(())))
    }
}

/// The open profile's alerts, newest first (dismissed ones left out).
#[tauri::command]
#[specta::specta]
pub async fn alerts_list(state: State<'_, AppState>) -> CmdResult<Vec<Alert>> {
    // Read every few seconds: the open desk as it is, not counted as the desk's use
    // (its idle memory is still handed back); opened only when none is.
    let desk = match state.open_desk().await {
        Some(d) if !state.lock_state().0 => d,
        _ => state.desk().await?,
    };
    state.home().alerts(&desk)
}

/// Marks alerts read, or dismisses them (`dismiss`).
#[tauri::command]
#[specta::specta]
pub async fn alerts_mark(
    state: State<'_, AppState>,
    keys: Vec<String>,
    dismiss: bool,
) -> CmdResult<()> {
    let desk = state.desk().await?;
    state
        .home()
        .mark_alerts(&desk.profile.name, &keys, dismiss, desk.now_ms())
}

/// The alerts the system's notifications show now, each once (marked notified as
/// they are handed out); none in the quiet hours or with notifications off. Asked
/// by the window on a timer while a desk is open; never opens one.
#[tauri::command]
#[specta::specta]
pub async fn alerts_due(state: State<'_, AppState>) -> CmdResult<Vec<Alert>> {
    if state.lock_state().0 {
        return Ok(Vec::new());
    }
    let Some(desk) = state.open_desk().await else {
        return Ok(Vec::new());
    };
    state.home().alerts_to_notify(&desk)
}

/// Shows one system notification, as the window words an alert handed out by
/// [`alerts_due`].
#[tauri::command]
#[specta::specta]
pub async fn alert_notify(
    notifier: State<'_, Notifier>,
    title: String,
    body: String,
) -> CmdResult<()> {
    let cut = |s: &str, n: usize| {
        s.chars()
            .filter(|c| !c.is_control())
            .take(n)
            .collect::<String>()
    };
    (notifier.0)(&cut(&title, 120), &cut(&body, 400)).map_err(|e| {
        tracing::warn!("system notification not shown: {e}");
        crate::state::internal(format!("the system's notification was not shown: {e}"))
    })
}

/// The open profile's alert thresholds.
#[tauri::command]
#[specta::specta]
pub async fn alert_settings(state: State<'_, AppState>) -> CmdResult<AlertSettings> {
    let desk = state.desk().await?;
    state.home().alert_settings(&desk.profile.name)
}

/// Sets the open profile's alert thresholds, checked member by member.
#[tauri::command]
#[specta::specta]
pub async fn alert_settings_save(
    state: State<'_, AppState>,
    settings: AlertSettings,
) -> CmdResult<()> {
    let desk = state.desk().await?;
    state
        .home()
        .set_alert_settings(&desk.profile.name, settings)
}
