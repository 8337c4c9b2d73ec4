//! Payins, payouts (one, or a bulk file), card top-ups and withdrawals: each goes
//! through the core's journal, keyed by the order number the form fixed when it opened,
//! so a second click or a retry never makes a second order.

use paydesk_api::money::After;
use paydesk_core::CoreError;
use paydesk_core::bulk::{self, BulkPlan, RowResult};
use paydesk_core::forms::{CardForm, PayinForm, PayoutForm, PayoutPreview, Receipt};
use paydesk_core::journal::JournalOperation;
use paydesk_core::journal::{Entry, Status};
use paydesk_core::{CardOperation, CardSummary, new_mer_order_no};
use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::State;
use tauri::ipc::Channel;

use super::CmdResult;
use crate::state::{AppState, internal};

/// A new merchant order number for a form that just opened (`PI` payin, `PO` payout,
/// `TU` card top-up, `WD` card withdrawal, `RV` review submission).
#[tauri::command]
#[specta::specta]
pub fn order_no_new(prefix: String) -> CmdResult<String> {
    match prefix.as_str() {
        "PI" | "PO" | "TU" | "WD" | "RV" => Ok(new_mer_order_no(&prefix)),
        _ => Err(CoreError::validation(
            "prefix",
            "must be PI, PO, TU, WD or RV",
        )),
    }
}

/// Opens a payin's `payUrl` in the default browser: only a link the core's rule admits
/// (`https`, or `http` to this machine; bounded; no credentials in it).
#[tauri::command]
#[specta::specta]
pub fn pay_url_open(url: String) -> CmdResult<()> {
    let url = paydesk_core::answers::link(url.trim())
        .map_err(|rule| CoreError::validation("payUrl", rule))?;
    open::that_detached(url.as_str())
        .map_err(|e| CoreError::internal(format!("cannot open a browser: {e}")))
}

#[tauri::command]
#[specta::specta]
pub async fn payin_create(
    state: State<'_, AppState>,
    form: PayinForm,
    allow_duplicate: bool,
) -> CmdResult<Receipt> {
    let desk = state.desk().await?;
    paydesk_api::money::payin(&desk, &form, allow_duplicate, After::Background).await
}

/// Checks a payout and answers with what the confirmation step shows.
#[tauri::command]
#[specta::specta]
pub async fn payout_preview(
    state: State<'_, AppState>,
    form: PayoutForm,
) -> CmdResult<PayoutPreview> {
    state.desk().await?.money().payout_preview(&form)
}

/// Sends a confirmed payout. `lose_answer` (built-in sandbox only) makes the sandbox
/// commit the payout and drop the connection, to see a lost answer handled for real.
/// `allow_duplicate`: the operator confirmed a second payout of an intent that is in
/// the journal under another number (the first try answers with a `duplicate` error
/// naming it).
#[tauri::command]
#[specta::specta]
pub async fn payout_create(
    state: State<'_, AppState>,
    form: PayoutForm,
    lose_answer: bool,
    allow_duplicate: bool,
) -> CmdResult<Receipt> {
    let desk = state.opened().await?;
    paydesk_api::money::payout(
        &desk,
        &form,
        allow_duplicate,
        lose_answer,
        After::Background,
    )
    .await
}

/// One journal entry, as it stands now.
#[tauri::command]
#[specta::specta]
pub async fn journal_entry(state: State<'_, AppState>, id: i64) -> CmdResult<Entry> {
    state.desk().await?.journal().entry(id)
}

/// Asks the gateway about an entry whose outcome is unknown (never sends it again).
#[tauri::command]
#[specta::specta]
pub async fn journal_reconcile(state: State<'_, AppState>, id: i64) -> CmdResult<Entry> {
    let desk = state.desk().await?;
    let e = desk.journal().entry(id)?;
    match e.status {
        Status::Unknown | Status::Sending => desk.journal().reconcile_entry(&e, false).await,
        _ => Ok(e),
    }
}

/// Resolves by hand an unknown card withdrawal or review submission (the gateway
/// cannot be asked about them): `done` marks it accepted, otherwise it can be sent
/// again with the same reference. The reason is kept and audited.
#[tauri::command]
#[specta::specta]
pub async fn journal_resolve(
    state: State<'_, AppState>,
    id: i64,
    done: bool,
    reason: String,
) -> CmdResult<Entry> {
    state
        .desk()
        .await?
        .journal()
        .resolve_entry(id, done, &reason)
}

/// Looks an unknown outcome up at the gateway now, whatever its backoff says (a
/// person asked; never sends it again).
#[tauri::command]
#[specta::specta]
pub async fn journal_look_up(state: State<'_, AppState>, id: i64) -> CmdResult<Entry> {
    let desk = state.desk().await?;
    let e = desk.journal().entry(id)?;
    match e.status {
        Status::Unknown | Status::Sending => desk.journal().reconcile_entry(&e, true).await,
        _ => Ok(e),
    }
}

/// Sends again, under its own number, a payout the journal knows did not reach the
/// gateway; `account` is typed again (the journal keeps it masked) and must be the
/// entry's.
#[tauri::command]
#[specta::specta]
pub async fn payout_resend(
    state: State<'_, AppState>,
    id: i64,
    account: String,
) -> CmdResult<Receipt> {
    let desk = state.opened().await?;
    paydesk_api::money::payout_resend(desk.desk(), id, &account, After::Background).await
}

/// Sends again, under its own number, a payin the journal knows never reached the
/// gateway; `tax_id` is a PIX payer's CPF typed again (the journal keeps it masked).
#[tauri::command]
#[specta::specta]
pub async fn payin_resend(
    state: State<'_, AppState>,
    id: i64,
    tax_id: Option<String>,
) -> CmdResult<Receipt> {
    let tax_id = tax_id.map(zeroize::Zeroizing::new);
    let desk = state.opened().await?;
    desk.journal()
        .resend_payin(id, tax_id.as_deref().map(|s| s.as_str()))
        .await
}

/// The newest journal entries of these operations (e.g. `v2.payout`, `v1.payout`; none
/// for all).
#[tauri::command]
#[specta::specta]
pub async fn journal_list(
    state: State<'_, AppState>,
    operations: Vec<JournalOperation>,
    limit: u32,
) -> CmdResult<Vec<Entry>> {
    state
        .desk()
        .await?
        .journal()
        .entries_of(&operations, i64::from(limit.clamp(1, 1000)))
}

/// A bulk payout file, checked against the journal: what sending it would do with each
/// row, the counts, and the totals per currency.
#[derive(Debug, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct BulkCheck {
    pub path: String,
    pub plan: BulkPlan,
    /// Where a run's results would be written now: a new file, never over another.
    pub result_path: String,
}

/// How a bulk send ended: one result per line of the file, and where they were written.
#[derive(Debug, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct BulkOutcome {
    pub results: Vec<RowResult>,
    pub result_path: String,
}

/// Opens a bulk run's result file (`*.result.csv`, written by [`bulk_send`]) in the
/// program the system uses for CSV files.
#[tauri::command]
#[specta::specta]
pub fn bulk_result_open(path: String) -> CmdResult<()> {
    let p = bulk_path(&path)?;
    if !p.to_string_lossy().ends_with(".result.csv") || !p.is_file() {
        return Err(CoreError::validation(
            "path",
            "must be a bulk run's result file (*.result.csv)",
        ));
    }
    open::that_detached(&p)
        .map_err(|e| CoreError::internal(format!("cannot open {}: {e}", p.display())))
}

#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct BulkProgress {
    pub done: u32,
    pub total: u32,
}

pub(crate) fn bulk_path(path: &str) -> CmdResult<std::path::PathBuf> {
    let p = std::path::PathBuf::from(path.trim());
    if !p.is_absolute() {
        return Err(CoreError::validation("path", "must be a full path"));
    }
    Ok(p)
}

/// The file read and checked; `purpose` (the run's, issue 35) given to the rows without
/// one, and a row still without one an error where the profile requires it.
async fn read_bulk(
    state: &State<'_, AppState>,
    path: &str,
    purpose: Option<paydesk_core::purpose::Purpose>,
) -> CmdResult<(std::sync::Arc<paydesk_core::Desk>, bulk::BulkFile)> {
    let p = bulk_path(path)?;
    let desk = state.desk().await?;
    let reader = desk.clone();
    let mut file = tokio::task::spawn_blocking(move || reader.money().bulk_read(&p))
        .await
        .map_err(internal)??;
    file.with_default_purpose(
        &purpose.unwrap_or_default(),
        desk.profile.safety.purpose_required,
    )?;
    Ok((desk, file))
}

/// Reads and checks a bulk payout CSV (columns: type, amount, currency, account,
/// firstName, lastName, country, merOrderNo); nothing is written or sent.
#[tauri::command]
#[specta::specta]
pub async fn bulk_check(
    state: State<'_, AppState>,
    path: String,
    purpose: Option<paydesk_core::purpose::Purpose>,
) -> CmdResult<BulkCheck> {
    let (desk, file) = read_bulk(&state, &path, purpose).await?;
    let result_path = bulk::fresh_result_path(&bulk_path(&path)?)
        .display()
        .to_string();
    Ok(BulkCheck {
        plan: desk.money().bulk_plan_fresh(&file).await?,
        path,
        result_path,
    })
}

/// Fixes one cell of a bulk file in place (a row the check refused), then checks the
/// file again: the new preview.
#[tauri::command]
#[specta::specta]
pub async fn bulk_fix(
    state: State<'_, AppState>,
    path: String,
    line: u32,
    column: String,
    value: String,
    purpose: Option<paydesk_core::purpose::Purpose>,
) -> CmdResult<BulkCheck> {
    let p = bulk_path(&path)?;
    tokio::task::spawn_blocking(move || bulk::fix_cell(&p, line as usize, &column, &value))
        .await
        .map_err(internal)??;
    bulk_check(state, path, purpose).await
}

/// Writes an empty bulk payout file (the header row) to the downloads folder under a
/// name no file has; returns its path.
#[tauri::command]
#[specta::specta]
pub async fn bulk_template() -> CmdResult<String> {
    let dir = dirs::download_dir()
        .or_else(dirs::home_dir)
        .unwrap_or_else(std::env::temp_dir);
    let path = (1..1000)
        .map(|n| match n {
            1 => dir.join("paydesk-payouts-template.csv"),
            n => dir.join(format!("paydesk-payouts-template-{n}.csv")),
        })
        .find(|p| std::fs::symlink_metadata(p).is_err())
        .ok_or_else(|| {
            CoreError::validation("path", "no free template name in the downloads folder")
        })?;
    bulk::write_template(&path, paydesk_core::output::Existing::Refuse)?;
    Ok(path.display().to_string())
}

/// Sends the rows of a bulk file the operator confirmed (each first written to the
/// journal; rows paid before are not sent again, unknown ones are looked up; held rows
/// only with `include_held`) and writes the result file next to it. `expected` is the
/// digest of the plan the confirmation showed (`digest`, or `digestWithHeld`): if the
/// plan made again now differs, nothing is sent.
#[tauri::command]
#[specta::specta]
pub async fn bulk_send(
    state: State<'_, AppState>,
    path: String,
    include_held: bool,
    expected: String,
    purpose: Option<paydesk_core::purpose::Purpose>,
    on_progress: Channel<BulkProgress>,
) -> CmdResult<BulkOutcome> {
    let (desk, file) = read_bulk(&state, &path, purpose).await?;
    // Where the outcomes go, proven writable before anything is sent: a file of its own,
    // so an earlier run's results are never replaced.
    let input = bulk_path(&path)?;
    let (out, existing) = bulk::result_target(
        &input,
        Some(&bulk::fresh_result_path(&input)),
        paydesk_core::output::Existing::Refuse,
    )?;
    let results = desk
        .money()
        .bulk_payouts(&file, include_held, Some(&expected), |done, total| {
            let _ = on_progress.send(BulkProgress {
                done: u32::try_from(done).unwrap_or(u32::MAX),
                total: u32::try_from(total).unwrap_or(u32::MAX),
            });
        })
        .await?;
    paydesk_api::money::after_bulk(&desk, After::Background).await;
    // The rows this run held wait on the Dashboard until a run of the file sends them.
    let now = chrono::Utc::now().timestamp_millis();
    if let Err(e) =
        state
            .home()
            .note_bulk_run(&desk.profile.name, &input, Some(&out), &results, now)
    {
        tracing::warn!(error = %e, "the bulk run's held rows were not kept for the Dashboard");
    }
    if let Err(e) = bulk::write_results(&out, existing, &file, &results) {
        // The money moved: said, with where the outcomes are.
        return Err(paydesk_core::CoreError::storage(format!(
            "the payouts were sent, but the result file could not be written ({e}); every row's outcome is in the journal (the Journal screen, or `paydesk journal list`)"
        )));
    }
    Ok(BulkOutcome {
        results,
        result_path: out.display().to_string(),
    })
}

#[tauri::command]
#[specta::specta]
pub async fn card_move(
    state: State<'_, AppState>,
    form: CardForm,
    allow_duplicate: bool,
) -> CmdResult<Receipt> {
    let desk = state.desk().await?;
    paydesk_api::money::card(&desk, &form, allow_duplicate, After::Background).await
}

#[tauri::command]
#[specta::specta]
pub async fn cards(state: State<'_, AppState>) -> CmdResult<Vec<CardSummary>> {
    state.desk().await?.money().cards()
}

#[tauri::command]
#[specta::specta]
pub async fn card_operations(state: State<'_, AppState>) -> CmdResult<Vec<CardOperation>> {
    state.desk().await?.money().card_operations()
}
