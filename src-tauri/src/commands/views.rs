//! Saved views of the Orders, Activity, Refunds and chargebacks, and Events screens
//! (issue 36): listed with their dates as they apply now, saved, changed, deleted, and
//! the view each screen opens with.

use paydesk_core::desk::SavedView;
use paydesk_core::period::Period;
use paydesk_core::views::{RelativeRange, Screen, ViewSpec};
use tauri::State;

use super::CmdResult;
use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn views_list(state: State<'_, AppState>, screen: Screen) -> CmdResult<Vec<SavedView>> {
    state.desk().await?.orders().views(screen)
}

/// The view `screen` used last (it opens with it), if it is still there.
#[tauri::command]
#[specta::specta]
pub async fn view_last(state: State<'_, AppState>, screen: Screen) -> CmdResult<Option<SavedView>> {
    state.desk().await?.orders().last_view(screen)
}

#[tauri::command]
#[specta::specta]
pub async fn view_save(
    state: State<'_, AppState>,
    screen: Screen,
    name: String,
    spec: ViewSpec,
    shared: bool,
) -> CmdResult<SavedView> {
    state
        .desk()
        .await?
        .orders()
        .save_view(screen, &name, &spec, shared)
}

#[tauri::command]
#[specta::specta]
pub async fn view_update(
    state: State<'_, AppState>,
    id: i64,
    spec: ViewSpec,
    shared: bool,
) -> CmdResult<()> {
    state.desk().await?.orders().update_view(id, &spec, shared)
}

#[tauri::command]
#[specta::specta]
pub async fn view_delete(state: State<'_, AppState>, id: i64) -> CmdResult<()> {
    state.desk().await?.orders().delete_view(id)
}

/// Keeps the view `screen` shows now (none: no view) for the next time it opens.
#[tauri::command]
#[specta::specta]
pub async fn view_use(
    state: State<'_, AppState>,
    screen: Screen,
    id: Option<i64>,
) -> CmdResult<()> {
    state.desk().await?.orders().use_view(screen, id)
}

/// A relative date range as it applies now, in the business's time zone.
#[tauri::command]
#[specta::specta]
pub async fn relative_range(state: State<'_, AppState>, range: RelativeRange) -> CmdResult<Period> {
    state.desk().await?.orders().relative_range(range)
}
