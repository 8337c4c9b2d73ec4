//! Reports: a period's statement from the cache, beside the period before it, and its
//! export; reading a period again; the profile's reporting settings. Days are in a zone
//! given by name (`time_zone`; empty: the profile's business zone): the statement of
//! November in Shanghai starts at 2026-11-01 00:00 +08:00, daylight saving honoured.

use paydesk_core::desk::Refreshed;
use paydesk_core::profile::Reporting;
use paydesk_reports::DeskReports;
use paydesk_reports::statement::export::StatementExport;
use paydesk_reports::statement::{Comparison, Period, Zone};
use tauri::State;

use super::CmdResult;
use crate::state::{AppState, internal};

/// The zone named (a zone name, UTC or an offset), else the profile's business zone
/// (`paydesk_api::reports`, as the CLI reads it).
fn zone(desk: &paydesk_core::Desk, time_zone: &str) -> CmdResult<Zone> {
    paydesk_api::reports::zone("timeZone", Some(time_zone), &desk.orders().reporting())
}

fn period(from: &str, to: &str, tz: Zone) -> CmdResult<Period> {
    paydesk_api::reports::days(from, to, tz)
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
    time_zone: String,
    currency: Option<String>,
) -> CmdResult<Comparison> {
    let desk = state.desk().await?;
    let tz = zone(&desk, &time_zone)?;
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
    time_zone: String,
    currency: Option<String>,
    path: String,
    overwrite: bool,
) -> CmdResult<StatementExport> {
    let desk = state.desk().await?;
    let tz = zone(&desk, &time_zone)?;
    let current = period(&from, &to, tz)?;
    let path = super::export_target(&path, overwrite)?;
    let c = one_currency(currency);
    tokio::task::spawn_blocking(move || {
        let existing = paydesk_core::output::Existing::replace_if(overwrite);
        desk.export_statement(current, c.as_deref(), &path, existing, tz)
            .map(|(_, made)| made)
    })
    .await
    .map_err(internal)?
}

/// Reads the days `from` to `to` again from the gateway (the hours around each end, the
/// days between; chargebacks' amounts looked up) before a statement is built of them;
/// `orders_sync_cancel` stops it.
#[tauri::command]
#[specta::specta]
pub async fn report_refresh(
    state: State<'_, AppState>,
    from: String,
    to: String,
    time_zone: String,
) -> CmdResult<Refreshed> {
    let desk = state.desk().await?;
    let tz = zone(&desk, &time_zone)?;
    let current = period(&from, &to, tz)?;
    desk.orders()
        .refresh_period(current, std::sync::Arc::default(), |_| {})
        .await
}

/// The active profile's reporting settings (business time zone, change horizon); with
/// `set`, sets them first (checked, kept with the profile, and taken by the running
/// desk at once: the Reports screen passes the zone, the schedule reads the horizon).
#[tauri::command]
#[specta::specta]
pub async fn report_settings(
    state: State<'_, AppState>,
    set: Option<Reporting>,
) -> CmdResult<Reporting> {
    let desk = state.desk().await?;
    let name = desk.profile.name.clone();
    let home = state.home();
    if let Some(r) = set {
        home.set_reporting(&name, r.clone())?;
        // The running desk too: its next re-read of the change horizon covers the new days.
        desk.orders().use_reporting(r)?;
    }
    home.reporting(&name)
}

/// Why money did not come in (issue 36): the success rate of the days `from` to `to`
/// (both included; both empty: the 7 days ending today) by method, currency and day, the
/// failed and closed orders by the gateway's reason and message with their amounts per
/// currency, and the period of the same length just before. Every figure carries the
/// filter of its orders.
#[tauri::command]
#[specta::specta]
pub async fn report_failures(
    state: State<'_, AppState>,
    from: String,
    to: String,
    time_zone: String,
) -> CmdResult<paydesk_reports::failures::FailureReport> {
    let desk = state.desk().await?;
    let tz = zone(&desk, &time_zone)?;
    let current = paydesk_api::reports::period(Some(&from), Some(&to), tz, desk.now_ms())?;
    tokio::task::spawn_blocking(move || desk.failures(current, tz))
        .await
        .map_err(internal)?
}
