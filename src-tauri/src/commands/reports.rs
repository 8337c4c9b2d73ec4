//! Reports: a period's statement from the cache, beside the period before it, and its
//! export. Days are the user's, in the user's time zone (`utc_offset_minutes`): the
//! statement of November in Shanghai starts at 2026-11-01 00:00 +08:00.

use paydesk_core::CoreError;
use paydesk_core::statement::export::StatementExport;
use paydesk_core::statement::{Comparison, Period};
use tauri::State;

use super::CmdResult;
use crate::state::{AppState, internal};

fn zone(utc_offset_minutes: i32) -> CmdResult<chrono::FixedOffset> {
    chrono::FixedOffset::east_opt(utc_offset_minutes.saturating_mul(60))
        .ok_or_else(|| CoreError::validation("utcOffsetMinutes", "must be within ±24 hours"))
}

fn day(field: &str, text: &str) -> CmdResult<chrono::NaiveDate> {
    chrono::NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d")
        .map_err(|_| CoreError::validation(field, format!("a day as YYYY-MM-DD, got {text:?}")))
}

fn period(from: &str, to: &str, tz: chrono::FixedOffset) -> CmdResult<Period> {
    Period::days(day("from", from)?, day("to", to)?, tz)
}

fn one_currency(c: Option<String>) -> Option<String> {
    c.map(|c| c.trim().to_ascii_uppercase())
        .filter(|c| !c.is_empty())
}

/// The statement of the days `from` to `to` (both included), beside the days
/// `previous_from` to `previous_to` (this month against the last), for one currency or
/// all. Every figure carries the filter of the orders behind it.
#[tauri::command]
#[specta::specta]
#[allow(clippy::too_many_arguments)]
pub async fn report_statement(
    state: State<'_, AppState>,
    from: String,
    to: String,
    previous_from: String,
    previous_to: String,
    utc_offset_minutes: i32,
    currency: Option<String>,
) -> CmdResult<Comparison> {
    let tz = zone(utc_offset_minutes)?;
    let current = period(&from, &to, tz)?;
    let previous = period(&previous_from, &previous_to, tz).map_err(|e| {
        e.in_terms(|f| {
            if f == "from" {
                "previousFrom"
            } else {
                "previousTo"
            }
        })
    })?;
    let desk = state.desk().await?;
    let c = one_currency(currency);
    tokio::task::spawn_blocking(move || desk.statement_compare(current, previous, c.as_deref()))
        .await
        .map_err(internal)?
}

/// Writes the statement of the days `from` to `to` to `path` (.xlsx or .csv), with its
/// filter, time zone, the time it was made, its rows and their SHA-256.
#[tauri::command]
#[specta::specta]
pub async fn report_export(
    state: State<'_, AppState>,
    from: String,
    to: String,
    utc_offset_minutes: i32,
    currency: Option<String>,
    path: String,
    overwrite: bool,
) -> CmdResult<StatementExport> {
    let tz = zone(utc_offset_minutes)?;
    let current = period(&from, &to, tz)?;
    let path = super::export_target(&path, overwrite)?;
    let desk = state.desk().await?;
    let c = one_currency(currency);
    tokio::task::spawn_blocking(move || {
        let existing = paydesk_core::output::Existing::replace_if(overwrite);
        desk.export_statement(current, c.as_deref(), &path, existing, tz)
            .map(|(_, made)| made)
    })
    .await
    .map_err(internal)?
}
