//! Refunds and chargebacks, review submissions, and the notifications received.

use paydesk_core::desk::{Event, QueryType, Reversal};
use paydesk_core::events::Received;
use paydesk_core::forms::Receipt;
use paydesk_core::review::{self, FileCheck};
use paydesk_core::review_match::FileMatch;
use paydesk_core::store::reviews::ReviewQueueItem;
use paydesk_core::{ReviewRequest, ReviewSubmission};
use paydesk_gateway::wire::{OrderRecord, RefundRecord};
use tauri::State;

use super::CmdResult;
use crate::state::{AppState, PickPurpose, internal};

/// The V1 refund query of one refund; the record is cached.
#[tauri::command]
#[specta::specta]
pub async fn refund_query(
    state: State<'_, AppState>,
    trade_no: String,
    refund_no: String,
) -> CmdResult<RefundRecord> {
    paydesk_gateway::validate::required("tradeNo", trade_no.trim())?;
    paydesk_gateway::validate::required("refundNo", refund_no.trim())?;
    state
        .desk()
        .await?
        .money()
        .refund(trade_no.trim(), refund_no.trim())
        .await
}

/// The V2 order query of one type (`sales`, `refund`, `chargeback`); refund and
/// chargeback records are cached.
#[tauri::command]
#[specta::specta]
pub async fn order_query(
    state: State<'_, AppState>,
    trade_no: String,
    query_type: QueryType,
) -> CmdResult<OrderRecord> {
    paydesk_gateway::validate::required("tradeNo", trade_no.trim())?;
    Ok(state
        .desk()
        .await?
        .orders()
        .query_order(trade_no.trim(), query_type.as_str())
        .await?
        .data)
}

/// Refunds and chargebacks cached from queries, newest first.
#[tauri::command]
#[specta::specta]
pub async fn reversals(
    state: State<'_, AppState>,
    trade_no: Option<String>,
) -> CmdResult<Vec<Reversal>> {
    let t = trade_no
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty());
    state.desk().await?.orders().reversals(t.as_deref())
}

/// Checks a file for a review submission (size, type by content) and answers with a
/// preview; the file is read here, never in the web view.
#[tauri::command]
#[specta::specta]
pub async fn review_file_check(path: String) -> CmdResult<FileCheck> {
    let p = std::path::PathBuf::from(path.trim());
    if !p.is_absolute() {
        return Err(paydesk_core::CoreError::validation(
            "file",
            "must be a full path",
        ));
    }
    tokio::task::spawn_blocking(move || review::inspect(&p))
        .await
        .map_err(internal)?
}

#[tauri::command]
#[specta::specta]
pub async fn review_submit(
    state: State<'_, AppState>,
    reference: String,
    request: ReviewRequest,
    allow_duplicate: bool,
) -> CmdResult<Receipt> {
    let desk = state.desk().await?;
    if allow_duplicate {
        desk.journal().allow_duplicate_once(&reference);
    }
    desk.money().review(&reference, &request).await
}

/// Sends a queued submission again, with its reference.
#[tauri::command]
#[specta::specta]
pub async fn review_resend(state: State<'_, AppState>, reference: String) -> CmdResult<Receipt> {
    state.desk().await?.money().review_again(&reference).await
}

#[tauri::command]
#[specta::specta]
pub async fn review_list(
    state: State<'_, AppState>,
    trade_no: Option<String>,
) -> CmdResult<Vec<ReviewSubmission>> {
    let t = trade_no
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty());
    state.desk().await?.money().review_submissions(t.as_deref())
}

/// The review queue: bank-transfer orders that need or have review documents, with
/// their status and age.
#[tauri::command]
#[specta::specta]
pub async fn review_queue(state: State<'_, AppState>) -> CmdResult<Vec<ReviewQueueItem>> {
    state.desk().await?.records().review_queue()
}

/// Files for several orders' reviews, each matched to a queued order by the order
/// number in its name (or listed as ambiguous or unmatched).
#[tauri::command]
#[specta::specta]
pub async fn review_match(
    state: State<'_, AppState>,
    paths: Vec<String>,
) -> CmdResult<Vec<FileMatch>> {
    state.desk().await?.records().review_match(&paths)
}

/// Notifications received at this desk's endpoint, newest first.
#[tauri::command]
#[specta::specta]
pub async fn events(state: State<'_, AppState>) -> CmdResult<Vec<Event>> {
    state.desk().await?.records().events(500)
}

/// An order's refunds and chargebacks, looked up at the gateway as its page opens.
#[tauri::command]
#[specta::specta]
pub async fn order_reversals(
    state: State<'_, AppState>,
    trade_no: String,
) -> CmdResult<paydesk_core::desk::OrderReversals> {
    state
        .desk()
        .await?
        .orders()
        .order_reversals(&trade_no)
        .await
}

/// The newest notification kept: the screens watch it and refresh what it changed (its
/// order was read again from the gateway before it was kept).
#[tauri::command]
#[specta::specta]
pub async fn notification_latest(
    state: State<'_, AppState>,
) -> CmdResult<Option<paydesk_core::events::Stored>> {
    state.desk().await?.records().latest_notification()
}

/// Checks a pasted notification body's signature with the gateway's key.
#[tauri::command]
#[specta::specta]
pub async fn event_verify(state: State<'_, AppState>, body: String) -> CmdResult<Received> {
    state.desk().await?.records().verify_notification(&body)
}

/// The system's file picker, opened from Rust (the web view has no dialog or file
/// permission); the chosen full paths, none when cancelled.
#[tauri::command]
#[specta::specta]
pub async fn files_pick(
    state: State<'_, AppState>,
    purpose: PickPurpose,
) -> CmdResult<Vec<String>> {
    let picker = state
        .picker()
        .ok_or_else(|| paydesk_core::CoreError::internal("no file picker in this window"))?;
    let picked = tokio::task::block_in_place(|| (picker.0)(crate::state::Pick::Open(purpose)));
    Ok(picked
        .into_iter()
        .map(|p| p.display().to_string())
        .collect())
}
