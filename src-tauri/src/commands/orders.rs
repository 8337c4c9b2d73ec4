//! The dashboard and the orders screen: pages of the cache, sync with progress and
//! cancel, detail with a live query, sandbox simulation, export.

use paydesk_core::CoreError;
use paydesk_core::desk::Dashboard;
use paydesk_core::desk::OrderDetail;
use paydesk_core::store::orders::{OrderFilter, OrderPage};
use paydesk_core::sync::{SyncOptions, SyncProgress, SyncReport};
use paydesk_gateway::dictionary::{Meaning, StateField};
use paydesk_reports::DeskReports;
use paydesk_session::SimulateAction;
use serde::Serialize;
use specta::Type;
use tauri::State;
use tauri::ipc::Channel;

use super::CmdResult;
use crate::state::{AppState, internal};

#[tauri::command]
#[specta::specta]
pub async fn dashboard(state: State<'_, AppState>) -> CmdResult<Dashboard> {
    let desk = state.desk().await?;
    let started = std::time::Instant::now();
    let name = desk.profile.name.clone();
    let mut d = tokio::task::spawn_blocking(move || desk.orders().dashboard())
        .await
        .map_err(internal)??;
    tracing::debug!(ms = started.elapsed().as_millis(), "dashboard figures read");
    // Bulk rows held by this profile's runs wait for a person too.
    d.held_bulk = state.home().held_bulk_rows(&name)?;
    // So do scheduled reports that failed or were missed.
    d.schedule_alerts = state.home().schedules(&name)?.alerts();
    Ok(d)
}

/// The merchant's currencies the desk knows (its orders' and balances').
#[tauri::command]
#[specta::specta]
pub async fn currencies(state: State<'_, AppState>) -> CmdResult<Vec<String>> {
    state.desk().await?.money().currencies()
}

/// One raw value of a state field and what the profile's dictionary says it means.
#[derive(Debug, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct StateMeaning {
    pub field: StateField,
    pub raw: String,
    pub meaning: Meaning,
}

/// The profile's state dictionary, for labels and filters.
#[tauri::command]
#[specta::specta]
pub async fn state_meanings(state: State<'_, AppState>) -> CmdResult<Vec<StateMeaning>> {
    let desk = state.desk().await?;
    let dict = desk.dictionary();
    let fields = [
        StateField::PayCode,
        StateField::OrderState,
        StateField::RefundState,
        StateField::QueryStatus,
        StateField::Settle,
        StateField::RollingReserveStatus,
    ];
    Ok(fields
        .into_iter()
        .flat_map(|field| {
            dict.entries(field).map(move |(raw, meaning)| StateMeaning {
                field,
                raw: raw.to_string(),
                meaning,
            })
        })
        .collect())
}

#[tauri::command]
#[specta::specta]
pub async fn orders_page(
    state: State<'_, AppState>,
    filter: OrderFilter,
    offset: u32,
    limit: u32,
) -> CmdResult<OrderPage> {
    let desk = state.desk().await?;
    tokio::task::spawn_blocking(move || {
        desk.orders()
            .page(&filter, i64::from(offset), i64::from(limit))
    })
    .await
    .map_err(internal)?
}

/// Syncs the last `days` days (all of them again with `full`), sending progress on
/// the channel; `orders_sync_cancel` stops it.
#[tauri::command]
#[specta::specta]
pub async fn orders_sync(
    state: State<'_, AppState>,
    days: u32,
    full: bool,
    on_progress: Channel<SyncProgress>,
) -> CmdResult<SyncReport> {
    let desk = state.desk().await?;
    let opts = SyncOptions {
        full,
        ..desk.orders().sync_options(i64::from(days))
    };
    // The balances the synced orders moved are kept before the sync is said done
    // (`paydesk_api::orders::sync`): the dashboard and the balance history show them
    // with its figures. A failure of that snapshot is the log's, not the sync's.
    let (report, _) = paydesk_api::orders::sync(&desk, &opts, std::sync::Arc::default(), |p| {
        let _ = on_progress.send(p.clone());
    })
    .await?;
    Ok(report)
}

#[tauri::command]
#[specta::specta]
pub async fn orders_sync_cancel(state: State<'_, AppState>) -> CmdResult<bool> {
    Ok(state.desk().await?.orders().cancel_sync())
}

#[tauri::command]
#[specta::specta]
pub async fn order_detail(state: State<'_, AppState>, trade_no: String) -> CmdResult<OrderDetail> {
    state
        .desk()
        .await?
        .orders()
        .order_detail(trade_no.trim())
        .await
}

/// The customer of an order this desk made, from its journal entry; none for an order
/// only read from the gateway's list.
#[tauri::command]
#[specta::specta]
pub async fn order_customer(
    state: State<'_, AppState>,
    trade_no: String,
) -> CmdResult<Option<paydesk_core::desk::Customer>> {
    let desk = state.desk().await?;
    tokio::task::spawn_blocking(move || desk.orders().order_customer(trade_no.trim()))
        .await
        .map_err(internal)?
}

/// The trade number of an order by its trade or merchant order number (the cache, then
/// the gateway's list); none when neither knows it.
#[tauri::command]
#[specta::specta]
pub async fn order_find(state: State<'_, AppState>, number: String) -> CmdResult<Option<String>> {
    state.desk().await?.orders().find_order(&number).await
}

/// The sandbox simulation actions that apply to a cached order now (none on a real
/// gateway's profile).
#[tauri::command]
#[specta::specta]
pub async fn sandbox_actions(
    state: State<'_, AppState>,
    trade_no: String,
) -> CmdResult<Vec<SimulateAction>> {
    state.opened().await?.simulation_actions(trade_no.trim())
}

/// A sandbox simulation action on an order (only on the built-in sandbox).
#[tauri::command]
#[specta::specta]
pub async fn sandbox_simulate(
    state: State<'_, AppState>,
    trade_no: String,
    action: SimulateAction,
    amount: Option<String>,
) -> CmdResult<Option<String>> {
    state
        .opened()
        .await?
        .simulate(&trade_no, action, amount.as_deref())
        .await
}

/// Adds `count` demo orders to the built-in sandbox (`paydesk sandbox --seed-orders`);
/// how many were added. A sync brings them into the cache.
#[tauri::command]
#[specta::specta]
pub async fn sandbox_seed(state: State<'_, AppState>, count: u32) -> CmdResult<u32> {
    let open = state.opened().await?;
    let n = tokio::task::spawn_blocking(move || open.seed_sandbox(count))
        .await
        .map_err(crate::state::internal)??;
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ExportProgress {
    pub done: u32,
    pub total: u32,
}

/// Writes every order of the filter to `path` (`.csv` or `.xlsx`), dates in the zone
/// `time_zone` names (the machine's zone name; empty: the profile's business zone),
/// each with the daylight saving of its own day; answers with the number of rows. A file already there is replaced
/// only with `overwrite` (the user confirmed it).
#[tauri::command]
#[specta::specta]
pub async fn orders_export(
    state: State<'_, AppState>,
    filter: OrderFilter,
    path: String,
    overwrite: bool,
    time_zone: String,
    on_progress: Channel<ExportProgress>,
) -> CmdResult<u32> {
    let path = super::export_target(&path, overwrite)?;
    let desk = state.desk().await?;
    let tz = paydesk_api::reports::zone("timeZone", Some(&time_zone), &desk.orders().reporting())?;
    let rows = tokio::task::spawn_blocking(move || {
        let existing = paydesk_core::output::Existing::replace_if(overwrite);
        desk.export(&filter, &path, existing, tz, |done, total| {
            let _ = on_progress.send(ExportProgress {
                done: u32::try_from(done).unwrap_or(u32::MAX),
                total: u32::try_from(total).unwrap_or(u32::MAX),
            });
        })
    })
    .await
    .map_err(internal)??;
    Ok(u32::try_from(rows).unwrap_or(u32::MAX))
}

/// A file name in the user's downloads folder for an export of `what` (`orders`,
/// `activity`, `statement`) now, with the extension of `format` (`csv`, `xlsx`; `pdf` for a statement).
#[tauri::command]
#[specta::specta]
pub async fn default_export_path(what: String, format: String) -> CmdResult<String> {
    if !["orders", "activity", "statement", "lookup"].contains(&what.as_str()) {
        return Err(CoreError::validation(
            "what",
            "must be orders, activity, statement or lookup",
        ));
    }
    // A PDF is a statement's only (orders and the activity log are tables).
    let formats: &[&str] = if what == "statement" {
        &["csv", "xlsx", "pdf"]
    } else {
        &["csv", "xlsx"]
    };
    if !formats.contains(&format.as_str()) {
        return Err(CoreError::validation(
            "format",
            format!("must be one of {}", formats.join(", ")),
        ));
    }
    let dir = dirs::download_dir()
        .or_else(dirs::home_dir)
        .unwrap_or_else(std::env::temp_dir);
    let name = format!(
        "paydesk-{what}-{}.{format}",
        chrono::Local::now().format("%Y%m%d-%H%M%S"),
    );
    Ok(dir.join(name).to_string_lossy().into_owned())
}

/// The system's save dialog for an export (`format` `csv`, `xlsx` or `pdf`), opened on the
/// suggested file: the path chosen (the dialog asked before replacing a file that is
/// there), none when cancelled.
#[tauri::command]
#[specta::specta]
pub async fn export_save_as(
    state: State<'_, AppState>,
    format: String,
    suggested: String,
) -> CmdResult<Option<String>> {
    let extension = match format.as_str() {
        "csv" => "csv",
        "xlsx" => "xlsx",
        "pdf" => "pdf",
        _ => return Err(CoreError::validation("format", "must be csv, xlsx or pdf")),
    };
    let picker = state
        .picker()
        .ok_or_else(|| CoreError::internal("no file dialog in this window"))?;
    let asked = crate::state::Pick::Save {
        extension,
        suggested: std::path::PathBuf::from(suggested.trim()),
    };
    let chosen = tokio::task::block_in_place(|| (picker.0)(asked));
    Ok(chosen.into_iter().next().map(|p| p.display().to_string()))
}

/// Whether a file is at `path` already (the export asks before replacing it).
#[tauri::command]
#[specta::specta]
pub async fn file_exists(path: String) -> CmdResult<bool> {
    Ok(std::path::Path::new(path.trim()).exists())
}
