//! The book of payees (issue 35): listed (masked), added (from the Beneficiaries screen
//! or a payout's confirmation), removed.

use paydesk_core::beneficiaries::{Beneficiary, NewBeneficiary, TeamPayeeRow};
use tauri::State;

use super::CmdResult;
use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn beneficiaries_list(state: State<'_, AppState>) -> CmdResult<Vec<Beneficiary>> {
    state.desk().await?.records().beneficiaries()
}

/// Adds a payee; its account is kept masked and sealed, never in clear.
#[tauri::command]
#[specta::specta]
pub async fn beneficiary_add(
    state: State<'_, AppState>,
    payee: NewBeneficiary,
) -> CmdResult<Beneficiary> {
    state.desk().await?.records().add_beneficiary(&payee)
}

/// On a team: approves a payee another member added: the row the book showed (its id
/// and sealed account's hash), refused when the book's row is now another.
#[tauri::command]
#[specta::specta]
pub async fn beneficiary_approve(state: State<'_, AppState>, row: TeamPayeeRow) -> CmdResult<()> {
    state.desk().await?.records().approve_beneficiary(&row)
}

/// On a team: whether a new payee needs another member's approval (none: a solo desk).
#[tauri::command]
#[specta::specta]
pub async fn payee_approval(state: State<'_, AppState>) -> CmdResult<Option<bool>> {
    state.desk().await?.records().payee_approval()
}

/// On a team (an admin): sets whether a new payee needs another member's approval.
#[tauri::command]
#[specta::specta]
pub async fn payee_approval_set(state: State<'_, AppState>, on: bool) -> CmdResult<()> {
    state.desk().await?.records().set_payee_approval(on)
}

#[tauri::command]
#[specta::specta]
pub async fn beneficiary_remove(state: State<'_, AppState>, nickname: String) -> CmdResult<()> {
    state.desk().await?.records().remove_beneficiary(&nickname)
}
