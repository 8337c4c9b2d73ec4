//! Checked before it leaves (issue 35): a payout's balance, fees and what is left for
//! its confirmation; the profile's payout limits.

use paydesk_core::desk::Funds;
use paydesk_core::limits::Limits;
use tauri::State;

use super::CmdResult;
use crate::state::AppState;

/// The confirmation's figures for a payout of `amount` in `currency`; `refresh` asks the
/// gateway for the balance now (kept as a snapshot), else the cached one with its age.
#[tauri::command]
#[specta::specta]
pub async fn payout_funds(
    state: State<'_, AppState>,
    currency: String,
    amount: String,
    refresh: bool,
) -> CmdResult<Funds> {
    state
        .desk()
        .await?
        .money()
        .payout_funds(&currency, &amount, refresh)
        .await
}

/// The active profile's payout limits; with `set`, sets them first (checked, kept with
/// the profile, and taken by the running desk at once).
#[tauri::command]
#[specta::specta]
pub async fn payout_limits(state: State<'_, AppState>, set: Option<Limits>) -> CmdResult<Limits> {
    let desk = state.desk().await?;
    if let Some(l) = set {
        return desk.money().set_limits(l);
    }
    state.home().limits(&desk.profile.name)
}
