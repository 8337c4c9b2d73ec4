//! Money movements, each followed by the balance snapshot of what it moved: the
//! balance history follows what happened, not only the Balances screen's button. A
//! failure of that snapshot is logged, never the movement's: what was sent stands.

use std::sync::Arc;

use paydesk_core::forms::{CardForm, PayinForm, PayoutForm, Receipt};
use paydesk_core::journal::Status;
use paydesk_core::{CoreResult, Desk};
use paydesk_session::OpenDesk;

/// When the snapshot after a movement runs: the front end's only say in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    /// On a task of its own (the app: the answer is shown at once, the runtime lives on).
    Background,
    /// Before the call returns (the CLI: the process ends with the command).
    Wait,
}

/// A balance snapshot of `currencies` (every currency the desk knows when empty), on a
/// desk that holds the merchant key; a failure is logged.
pub async fn snapshot_after(desk: &Arc<Desk>, currencies: Vec<String>, after: After) {
    if !desk.holds_key() {
        return;
    }
    let desk = desk.clone();
    let take = async move {
        if let Err(e) = desk.money().balances(&currencies).await {
            tracing::warn!("balance snapshot after a change: {e}");
        }
    };
    match after {
        After::Background => drop(tokio::spawn(take)),
        After::Wait => take.await,
    }
}

/// The snapshot after `receipt`, when the gateway accepted it.
async fn after_accepted(
    desk: &Arc<Desk>,
    receipt: &CoreResult<Receipt>,
    currency: Option<String>,
    after: After,
) {
    if let (Ok(r), Some(c)) = (receipt, currency)
        && r.entry.status == Status::Accepted
    {
        snapshot_after(desk, vec![c], after).await;
    }
}

/// A payin through the journal. `allow_duplicate`: the operator confirmed a second
/// order of an intent already in the journal under another number.
pub async fn payin(
    desk: &Arc<Desk>,
    form: &PayinForm,
    allow_duplicate: bool,
    after: After,
) -> CoreResult<Receipt> {
    if allow_duplicate {
        desk.journal().allow_duplicate_once(&form.mer_order_no);
    }
    let r = desk.money().payin(form).await;
    after_accepted(desk, &r, Some(form.currency.clone()), after).await;
    r
}

/// A payout through the journal. `lose_answer` (the built-in sandbox only) has the
/// sandbox commit it and drop the connection, to see a lost answer handled for real.
pub async fn payout(
    desk: &OpenDesk,
    form: &PayoutForm,
    allow_duplicate: bool,
    lose_answer: bool,
    after: After,
) -> CoreResult<Receipt> {
    if allow_duplicate {
        desk.journal().allow_duplicate_once(&form.mer_order_no);
    }
    let r = if lose_answer {
        desk.payout_losing_answer(form).await
    } else {
        desk.money().payout(form).await
    };
    after_accepted(desk.desk(), &r, Some(form.currency.clone()), after).await;
    r
}

/// A card top-up or withdrawal through the journal.
pub async fn card(
    desk: &Arc<Desk>,
    form: &CardForm,
    allow_duplicate: bool,
    after: After,
) -> CoreResult<Receipt> {
    if allow_duplicate {
        desk.journal().allow_duplicate_once(&form.reference);
    }
    let r = desk.money().card(form).await;
    after_accepted(desk, &r, Some(form.currency.clone()), after).await;
    r
}

/// A payout the journal knows did not reach the gateway, sent again under its number
/// (`account` typed again: the journal keeps it masked).
pub async fn payout_resend(
    desk: &Arc<Desk>,
    id: i64,
    account: &str,
    after: After,
) -> CoreResult<Receipt> {
    let r = desk.journal().resend_payout(id, account).await;
    let currency = r.as_ref().ok().and_then(|r| {
        r.entry
            .request
            .get("currencyCode")
            .and_then(|c| c.as_str())
            .map(str::to_string)
    });
    after_accepted(desk, &r, currency, after).await;
    r
}

/// After a bulk run: a snapshot of every currency (its rows may be in several).
pub async fn after_bulk(desk: &Arc<Desk>, after: After) {
    snapshot_after(desk, Vec::new(), after).await;
}
