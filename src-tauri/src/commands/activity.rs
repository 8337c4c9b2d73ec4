//! Activity: the chained audit log, its check, and its export.

use paydesk_core::audit::{AuditEntry, AuditFilter, ChainCheck};
use tauri::State;

use super::CmdResult;
use crate::state::{AppState, internal};

/// The newest entries matching the filter (500 unless the filter says otherwise).
#[tauri::command]
#[specta::specta]
pub async fn audit_list(
    state: State<'_, AppState>,
    filter: AuditFilter,
) -> CmdResult<Vec<AuditEntry>> {
    let desk = state.desk().await?;
    let filter = AuditFilter {
        limit: Some(filter.limit.unwrap_or(500).clamp(1, 10_000)),
        ..filter
    };
    tokio::task::spawn_blocking(move || desk.journal().audit_list(&filter))
        .await
        .map_err(internal)?
}

/// The chain's check: every row's hash covers its content and the previous hash. The
/// rows after the last one found sealed (the keyring keeps how far), and the whole chain
/// once a day or when that row changed (`Journal::audit_check`; the CLI's `paydesk audit
/// verify` always reads the whole chain).
#[tauri::command]
#[specta::specta]
pub async fn audit_verify(state: State<'_, AppState>) -> CmdResult<ChainCheck> {
    let desk = state.desk().await?;
    tokio::task::spawn_blocking(move || desk.journal().audit_check())
        .await
        .map_err(internal)?
}

/// Writes every entry matching the filter to a CSV file; answers with the row count.
/// A file already there is replaced only with `overwrite`.
#[tauri::command]
#[specta::specta]
pub async fn audit_export(
    state: State<'_, AppState>,
    filter: AuditFilter,
    path: String,
    overwrite: bool,
) -> CmdResult<u32> {
    let path = super::export_target(&path, overwrite)?;
    let desk = state.desk().await?;
    let n = tokio::task::spawn_blocking(move || {
        desk.journal().export_audit(
            &AuditFilter {
                limit: None,
                ..filter
            },
            &path,
            paydesk_core::output::Existing::replace_if(overwrite),
        )
    })
    .await
    .map_err(internal)??;
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

/// Whether `profile`'s audit key is lost from the keyring while its log holds rows
/// sealed with it (the missing-secrets screen then offers a new log). Works while the
/// desk cannot open.
#[tauri::command]
#[specta::specta]
pub async fn audit_key_lost(
    state: State<'_, AppState>,
    profile: String,
) -> CmdResult<Option<paydesk_core::desk::LostAuditKey>> {
    let home = state.home().clone();
    let secrets = state.secrets()?;
    tokio::task::spawn_blocking(move || {
        paydesk_core::desk::audit_key_lost(&home, &secrets, &profile)
    })
    .await
    .map_err(internal)?
}

/// Sets `profile`'s old audit log aside (its rows kept, marked as sealed with a lost
/// key) and starts a new chain under a new key; refused while the key is there.
#[tauri::command]
#[specta::specta]
pub async fn audit_new_log(
    state: State<'_, AppState>,
    profile: String,
) -> CmdResult<paydesk_core::desk::NewAuditLog> {
    let home = state.home().clone();
    let secrets = state.secrets()?;
    let new = tokio::task::spawn_blocking(move || {
        paydesk_core::desk::start_new_audit_log(&home, &secrets, &profile)
    })
    .await
    .map_err(internal)??;
    Ok(new)
}

/// The audit logs set aside because their key was lost, newest first.
#[tauri::command]
#[specta::specta]
pub async fn audit_archives(
    state: State<'_, AppState>,
) -> CmdResult<Vec<paydesk_core::audit::AuditArchive>> {
    let desk = state.desk().await?;
    tokio::task::spawn_blocking(move || desk.journal().audit_archives())
        .await
        .map_err(internal)?
}

/// The rows of a log set aside, as written (newest first, at most `limit`).
#[tauri::command]
#[specta::specta]
pub async fn audit_archived_rows(
    state: State<'_, AppState>,
    archive: i64,
    limit: i64,
) -> CmdResult<Vec<AuditEntry>> {
    let desk = state.desk().await?;
    tokio::task::spawn_blocking(move || desk.journal().audit_archived_rows(archive, limit))
        .await
        .map_err(internal)?
}
