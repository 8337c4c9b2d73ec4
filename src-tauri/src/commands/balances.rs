//! Balances per currency and their history.

use paydesk_core::CoreError;
use paydesk_core::desk::BalanceSnapshot;
use serde::Serialize;
use specta::Type;
use tauri::State;

use super::CmdResult;
use crate::state::AppState;

/// One currency's balance query: the answer, or why it failed (one currency's failure
/// does not hide the others).
#[derive(Debug, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct BalanceResult {
    pub currency: String,
    pub snapshot: Option<BalanceSnapshot>,
    pub error: Option<CoreError>,
}

/// Queries the balance of each currency (every currency seen in the cache when the
/// list is empty); each answer is kept as a snapshot.
#[tauri::command]
#[specta::specta]
pub async fn balances(
    state: State<'_, AppState>,
    currencies: Vec<String>,
) -> CmdResult<Vec<BalanceResult>> {
    let desk = state.desk().await?;
    let mut list: Vec<String> = currencies
        .iter()
        .map(|c| c.trim().to_ascii_uppercase())
        .filter(|c| !c.is_empty())
        .collect();
    if list.is_empty() {
        list = desk.order_currencies()?;
    }
    for c in &list {
        paydesk_gateway::money::Currency::parse(c)
            .map_err(|rule| CoreError::validation("currency", rule))?;
    }
    let mut out = Vec::with_capacity(list.len());
    for currency in list {
        let r = desk.balance(&currency).await;
        out.push(match r {
            Ok(s) => BalanceResult {
                currency,
                snapshot: Some(s),
                error: None,
            },
            Err(e) => BalanceResult {
                currency,
                snapshot: None,
                error: Some(e),
            },
        });
    }
    Ok(out)
}

#[tauri::command]
#[specta::specta]
pub async fn balance_history(
    state: State<'_, AppState>,
    currency: String,
) -> CmdResult<Vec<BalanceSnapshot>> {
    state.desk().await?.balance_history(currency.trim())
}
