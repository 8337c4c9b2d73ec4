//! Balances: their history, the reconciliation between two snapshots, what is still to
//! settle, and the manager's overview of every profile.

use paydesk_core::desk::BalanceSnapshot;
use paydesk_core::{CoreError, CoreResult, Desk, Home, Secrets};
use paydesk_reports::DeskReports;
use paydesk_reports::overview::{ConversionRate, Overview};
use paydesk_reports::reconcile::{Reconciliation, Upcoming};

/// A currency as the balance calls take it (`mxn ` is `MXN`); refused when empty.
fn currency(text: &str) -> CoreResult<String> {
    let c = text.trim().to_ascii_uppercase();
    if c.is_empty() {
        return Err(CoreError::validation(
            "currency",
            "a currency code such as MXN",
        ));
    }
    Ok(c)
}

/// Every snapshot of `currency` kept by this desk, oldest first.
pub fn history(desk: &Desk, currency_code: &str) -> CoreResult<Vec<BalanceSnapshot>> {
    desk.money().balance_history(&currency(currency_code)?)
}

/// The reconciliation of `currency` between two of its snapshots (`takenAt`).
pub fn reconcile(
    desk: &Desk,
    currency_code: &str,
    from_taken_at: i64,
    to_taken_at: i64,
) -> CoreResult<Reconciliation> {
    desk.reconcile_balance(&currency(currency_code)?, from_taken_at, to_taken_at)
}

/// Paid payins not settled yet and reserve not released yet, per currency (one when
/// given, empty for all).
pub fn upcoming(desk: &Desk, currency_code: Option<&str>) -> CoreResult<Vec<Upcoming>> {
    let c = currency_code
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(currency)
        .transpose()?;
    desk.upcoming(c.as_deref())
}

/// Every profile's last balances, last sync and unknown outcomes, with totals per
/// currency (no gateway asked); the totals converted to `target` only with the `rates`
/// given. Read on the blocking pool: it opens every profile's store.
pub async fn overview(
    home: Home,
    secrets: Secrets,
    target: Option<String>,
    rates: Vec<ConversionRate>,
) -> CoreResult<Overview> {
    tokio::task::spawn_blocking(move || {
        let to = target.as_deref().map(str::trim).filter(|t| !t.is_empty());
        paydesk_reports::overview::overview(&home, &secrets, to.map(|t| (t, rates.as_slice())))
    })
    .await
    .map_err(|e| CoreError::internal(e.to_string()))?
}
