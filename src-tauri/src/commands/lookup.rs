//! Bulk look-up of many order or trade numbers (`Orders::bulk_lookup`), with progress,
//! a stop, and an export of its table.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use paydesk_core::desk::{LookupOptions, LookupProgress, LookupReport};
use tauri::State;
use tauri::ipc::Channel;

use super::CmdResult;
use crate::state::{AppState, internal};

/// The running look-up's stop flag (one window, one look-up at a time).
static RUNNING: Mutex<Option<Arc<AtomicBool>>> = Mutex::new(None);

/// Looks up the numbers of `text` (pasted, or a file's content), sending progress on
/// the channel; `orders_lookup_cancel` stops it between requests.
#[tauri::command]
#[specta::specta]
pub async fn orders_lookup(
    state: State<'_, AppState>,
    text: String,
    options: LookupOptions,
    on_progress: Channel<LookupProgress>,
) -> CmdResult<LookupReport> {
    let desk = state.desk().await?;
    let cancel = Arc::new(AtomicBool::new(false));
    *RUNNING.lock().unwrap_or_else(PoisonError::into_inner) = Some(cancel.clone());
    let r = desk
        .orders()
        .bulk_lookup(&text, options, cancel, |p| {
            let _ = on_progress.send(*p);
        })
        .await;
    RUNNING
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take();
    r
}

/// Stops the running look-up; false when none runs.
#[tauri::command]
#[specta::specta]
pub async fn orders_lookup_cancel() -> CmdResult<bool> {
    Ok(RUNNING
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .is_some_and(|c| {
            c.store(true, Ordering::Relaxed);
            true
        }))
}

/// Writes a look-up's table to `path` (`.csv` or `.xlsx`); answers with its rows.
#[tauri::command]
#[specta::specta]
pub async fn orders_lookup_export(
    report: LookupReport,
    path: String,
    overwrite: bool,
) -> CmdResult<u32> {
    let path = super::export_target(&path, overwrite)?;
    tokio::task::spawn_blocking(move || {
        paydesk_reports::lookup::export_lookup(
            &report,
            &path,
            paydesk_core::output::Existing::replace_if(overwrite),
        )
    })
    .await
    .map_err(internal)?
}
