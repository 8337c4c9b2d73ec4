//! Balances per currency and their history.

use paydesk_core::desk::{BalanceResult, BalanceSnapshot};
use tauri::State;

use super::CmdResult;
use crate::state::AppState;

/// Queries the balance of each currency (every currency seen in the cache when the
/// list is empty); each answer is kept as a snapshot.
#[tauri::command]
#[specta::specta]
pub async fn balances(
    state: State<'_, AppState>,
    currencies: Vec<String>,
) -> CmdResult<Vec<BalanceResult>> {
    state.desk().await?.money().balances(&currencies).await
}

/// The last snapshot of each currency (no request to the gateway).
#[tauri::command]
#[specta::specta]
pub async fn balances_latest(state: State<'_, AppState>) -> CmdResult<Vec<BalanceSnapshot>> {
    state.desk().await?.money().latest_balances()
}

#[tauri::command]
#[specta::specta]
pub async fn balance_history(
    state: State<'_, AppState>,
    currency: String,
) -> CmdResult<Vec<BalanceSnapshot>> {
    paydesk_api::balances::history(&*state.desk().await?, &currency)
}

/// Every profile's last balances, last sync and unknown outcomes, with totals per
/// currency (read from each profile's own store; no gateway is asked). The totals are
/// converted to `target` only with the rates the user gives.
#[tauri::command]
#[specta::specta]
pub async fn balances_overview(
    state: State<'_, AppState>,
    target: Option<String>,
    rates: Vec<paydesk_reports::overview::ConversionRate>,
) -> CmdResult<paydesk_reports::overview::Overview> {
    paydesk_api::balances::overview(state.home().clone(), state.secrets()?, target, rates).await
}

/// The reconciliation of `currency`'s balance between two of its snapshots (their
/// `takenAt`): observed against explained by the cached orders, line by line.
#[tauri::command]
#[specta::specta]
pub async fn balance_reconcile(
    state: State<'_, AppState>,
    currency: String,
    from_taken_at: i64,
    to_taken_at: i64,
) -> CmdResult<paydesk_reports::reconcile::Reconciliation> {
    paydesk_api::balances::reconcile(&*state.desk().await?, &currency, from_taken_at, to_taken_at)
}

/// Paid payins not settled yet and rolling reserve not released yet, per currency (one
/// when given).
#[tauri::command]
#[specta::specta]
pub async fn balances_upcoming(
    state: State<'_, AppState>,
    currency: Option<String>,
) -> CmdResult<Vec<paydesk_reports::reconcile::Upcoming>> {
    paydesk_api::balances::upcoming(&*state.desk().await?, currency.as_deref())
}
