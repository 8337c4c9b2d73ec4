//! What needs a person: the journal entries no rule of the desk settles on its own, each
//! with the one action that resolves it, and that action for a payout known not sent
//! (sent again under its own number). The app's Dashboard and the CLI read the same list.

use paydesk_gateway::wire;
use serde::{Deserialize, Serialize};

use crate::desk::Desk;
use crate::error::{CoreError, CoreResult};
use crate::forms::Receipt;
use crate::journal::{Entry, JournalOperation, Status};

/// The action that resolves an entry needing a person.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttentionAction {
    /// Known not to have reached the gateway: send it again under the same number.
    SendAgain,
    /// Outcome unknown, and the gateway's list can prove it either way: look it up now.
    LookUp,
    /// Outcome unknown, and nothing the gateway answers proves it: a person finds out
    /// and records what they found, with a reason.
    Resolve,
}

/// One entry that needs a person, and what they do about it.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attention {
    pub entry: Entry,
    pub action: AttentionAction,
    /// For [`AttentionAction::SendAgain`]: the request field the journal keeps masked
    /// (`clabe`, `cardNo`) that the person types again, checked against the entry's
    /// fingerprint; `None` when the entry can be sent again only from its own form.
    pub account_field: Option<String>,
}

/// The masked field of a payout's request that a resend needs typed again.
fn account_field(op: JournalOperation) -> Option<&'static str> {
    match op {
        JournalOperation::V2Payout => Some("clabe"),
        JournalOperation::V1CardPayout => Some("cardNo"),
        _ => None,
    }
}

/// What a person does about an entry, if anything.
pub(crate) fn action_of(e: &Entry) -> Option<AttentionAction> {
    match e.status {
        Status::Pending => Some(AttentionAction::SendAgain),
        Status::Unknown | Status::Sending if e.can_be_looked_up => Some(AttentionAction::LookUp),
        Status::Unknown | Status::Sending => Some(AttentionAction::Resolve),
        Status::Accepted | Status::Rejected => None,
    }
}

impl Desk {
    /// After a money movement the gateway accepted, the order it made is read again
    /// from the gateway's list (its state and fees as the gateway has them, not only as
    /// the answer implied). A list that does not show it yet, or a failed read, leaves
    /// the cache as the answer made it: the next sync or notification reads it.
    pub(crate) async fn reread_made(&self, r: &CoreResult<Receipt>) {
        let Some(trade_no) = r
            .as_ref()
            .ok()
            .filter(|r| r.entry.status == Status::Accepted && !r.replayed)
            .and_then(|r| r.entry.trade_no.clone())
        else {
            return;
        };
        if let Err(e) = self.relist(&trade_no).await {
            tracing::info!(error = %e, %trade_no, "a made order was not read again");
        }
    }
}

impl<'d> super::Journal<'d> {
    /// Every entry of this profile that needs a person, oldest first (the longest
    /// waiting at the top), at most `limit`.
    pub fn needs_attention(&self, limit: i64) -> CoreResult<Vec<Attention>> {
        let mut list = self.desk.store.journal().list(
            &self.desk.profile.name,
            &[Status::Pending, Status::Unknown, Status::Sending],
            &[],
            limit,
        )?;
        list.sort_by_key(|e| (e.created_at, e.id));
        Ok(list
            .into_iter()
            .map(|e| self.desk.as_seen(e))
            .filter_map(|entry| {
                let action = action_of(&entry)?;
                let account_field = (action == AttentionAction::SendAgain)
                    .then(|| account_field(entry.operation))
                    .flatten()
                    .map(str::to_string);
                Some(Attention {
                    entry,
                    action,
                    account_field,
                })
            })
            .collect())
    }

    /// Sends again, under its own number, a payout the journal knows did not reach the
    /// gateway (`pending`). The journal keeps the account masked, so the person types it
    /// again (`account`); it must make the very request of the entry (its fingerprint),
    /// or nothing is sent. Anything else about the request is the journal's.
    pub async fn resend_payout(self, id: i64, account: &str) -> CoreResult<Receipt> {
        let e = self.entry(id)?;
        if e.status != Status::Pending {
            return Err(CoreError::keyed(
                "id",
                format!(
                    "journal #{id} ({}) is {}, not “not sent”: it is not sent again",
                    e.mer_order_no,
                    e.status.as_str()
                ),
                "resendNotUnsent",
                &[
                    ("id", id.to_string()),
                    ("number", e.mer_order_no.clone()),
                    ("status", e.status.as_str().to_string()),
                ],
            ));
        }
        let Some(field) = account_field(e.operation) else {
            return Err(CoreError::keyed(
                "id",
                format!(
                    "journal #{id} is a {}, not a payout: send it again from its own form with the number {}",
                    e.operation.name(),
                    e.mer_order_no
                ),
                "resendNotPayout",
                &[
                    ("id", id.to_string()),
                    ("operation", e.operation.name().to_string()),
                    ("number", e.mer_order_no.clone()),
                ],
            ));
        };
        let typed: String = account.chars().filter(|c| !c.is_whitespace()).collect();
        if typed.is_empty() {
            return Err(CoreError::keyed(
                field,
                "required: the journal keeps it masked, type it again",
                "resendAccountRequired",
                &[],
            ));
        }
        let mut request = e.request.clone();
        let Some(members) = request.as_object_mut() else {
            return Err(CoreError::internal(format!(
                "journal #{id} keeps no request to send again"
            )));
        };
        members.insert(field.to_string(), serde_json::Value::String(typed));
        let unreadable = |err: serde_json::Error| {
            CoreError::internal(format!(
                "journal #{id}'s request cannot be read again: {err}"
            ))
        };
        let not_it = || {
            CoreError::keyed(
                field,
                format!(
                    "is not the account of {} (the journal keeps {}): nothing was sent",
                    e.mer_order_no,
                    e.request
                        .get(field)
                        .and_then(|v| v.as_str())
                        .unwrap_or("it masked")
                ),
                "resendAccountDiffers",
                &[("number", e.mer_order_no.clone())],
            )
        };
        // Sent again, it leaves now: the profile's limits and the balance are asked as for a
        // new payout (review-money-r5 F3); refused, it stays "not sent", naming the rule.
        let currency = e
            .request
            .get("currencyCode")
            .and_then(|c| c.as_str())
            .unwrap_or_default()
            .to_string();
        let amount = match e.request.get("sourceAmount") {
            Some(serde_json::Value::String(s)) => s.trim().parse().ok(),
            Some(serde_json::Value::Number(n)) => n.to_string().parse().ok(),
            _ => None,
        };
        if let Some(amount) = amount {
            self.desk
                .check_before_journal(&e.mer_order_no, &currency, amount)
                .await?;
        }
        let r = match e.operation {
            JournalOperation::V2Payout => {
                let op: wire::V2Payout = serde_json::from_value(request).map_err(unreadable)?;
                if self.desk.fingerprint_of(&op)? != e.fingerprint {
                    return Err(not_it());
                }
                self.desk.money().payout_clabe(op).await
            }
            _ => {
                let op: wire::V1CardPayout = serde_json::from_value(request).map_err(unreadable)?;
                if self.desk.fingerprint_of(&op)? != e.fingerprint {
                    return Err(not_it());
                }
                self.desk.money().payout_card(op).await
            }
        };
        let r = r.map(|s| Receipt::new(s.entry, s.replayed));
        let r = self
            .desk
            .receipt_or_error(e.operation.name(), &e.mer_order_no, r);
        self.desk.reread_made(&r).await;
        r
    }
}
