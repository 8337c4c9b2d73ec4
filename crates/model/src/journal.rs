//! The journal's rows: an intent's entry, its status, the operations it records, and
//! what beginning and finishing an entry take and answer (`journal`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Written, not sent (or known not to have reached the gateway): safe to send.
    Pending,
    /// The request is leaving or left; no answer recorded yet.
    Sending,
    /// The gateway accepted it (`trade_no` set).
    Accepted,
    /// The gateway refused it (`code`, `message` set).
    Rejected,
    /// It may or may not have reached the gateway: reconciled by querying before
    /// anything is sent again.
    Unknown,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Sending => "sending",
            Self::Accepted => "accepted",
            Self::Rejected => "rejected",
            Self::Unknown => "unknown",
        }
    }

    pub fn parse(s: &str) -> Self {
        match s {
            "pending" => Self::Pending,
            "sending" => Self::Sending,
            "accepted" => Self::Accepted,
            "rejected" => Self::Rejected,
            _ => Self::Unknown,
        }
    }
}

/// The journal's transitions: from which statuses each step may move an entry. Both
/// store backends take their allowed states from here (`WHERE status IN (..)`), so the
/// rule is written once.
impl Status {
    /// Every status.
    pub const ALL: [Status; 5] = [
        Status::Pending,
        Status::Sending,
        Status::Accepted,
        Status::Rejected,
        Status::Unknown,
    ];

    /// An intent still alive: written and not sent, being sent, or sent with its outcome
    /// unknown. The duplicate guard matches these (and an accepted one within its
    /// window).
    pub const LIVE: [Status; 3] = [Status::Pending, Status::Sending, Status::Unknown];

    /// Sent (or being sent) with no outcome known: what a lookup settles (`not_found_yet`,
    /// `resolve`) and what is reconciled.
    pub const UNSETTLED: [Status; 2] = [Status::Unknown, Status::Sending];

    /// Whether an outcome `to` may be recorded on an entry in `self`: an accepted entry
    /// is final; a rejected one only becomes accepted (a lookup finding the order); any
    /// other takes any outcome.
    pub fn may_finish_as(self, to: Status) -> bool {
        match self {
            Status::Accepted => false,
            Status::Rejected => to == Status::Accepted,
            Status::Pending | Status::Sending | Status::Unknown => true,
        }
    }

    /// The statuses an entry may be in for the outcome `to` to be recorded on it.
    pub fn finishing_as(to: Status) -> Vec<Status> {
        Status::ALL
            .into_iter()
            .filter(|from| from.may_finish_as(to))
            .collect()
    }
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    pub id: i64,
    pub profile: String,
    /// The operation (its journal name on the wire of IPC, e.g. `v2.payout`).
    pub operation: JournalOperation,
    /// Fixed once, reused by every resubmission.
    pub mer_order_no: String,
    /// The request as sent, card numbers masked and file contents left out.
    pub request: Value,
    /// One line for people: amount, currency, beneficiary, masked account.
    pub summary: String,
    pub status: Status,
    pub trade_no: Option<String>,
    pub code: Option<String>,
    pub message: Option<String>,
    pub attempts: i64,
    pub created_at: i64,
    pub updated_at: i64,
    pub next_check_at: Option<i64>,
    /// What the request does (see [`fingerprint`]): equal for the same intent.
    pub fingerprint: String,
    /// When the request last left (UTC millis); `None` if it never did.
    pub sent_at: Option<i64>,
    /// Lookups since then that did not find it at the gateway.
    pub lookups: i64,
    /// How an operator resolved an outcome by hand, and why.
    pub resolution: Option<String>,
    /// Whether the gateway can be asked about this call's outcome: false for a card
    /// withdrawal or a review submission, which carry no merchant order number the
    /// interface can look up (an unknown outcome of those is settled by the operator).
    pub can_be_looked_up: bool,
    /// Why the money moved, as given before the request left (issue 35); none for an
    /// entry made without one (or before PayDesk kept purposes).
    #[serde(default)]
    pub purpose: Option<crate::purpose::Purpose>,
}

/// The operations the journal records, as their journal names (`v2.payout`, ...).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum JournalOperation {
    #[serde(rename = "v2.payment")]
    V2Payment,
    #[serde(rename = "v1.payment")]
    V1Payment,
    #[serde(rename = "v1.payment.vn_bank")]
    V1VnBankPayment,
    #[serde(rename = "v2.payout")]
    V2Payout,
    #[serde(rename = "v1.payout")]
    V1CardPayout,
    #[serde(rename = "v2.card.topUp")]
    V2CardTopUp,
    #[serde(rename = "v1.card.withdraw")]
    V1CardWithdraw,
    #[serde(rename = "v1.submit.transferOrder")]
    V1TransferOrderSubmit,
}

impl JournalOperation {
    pub const ALL: [Self; 8] = [
        Self::V2Payment,
        Self::V1Payment,
        Self::V1VnBankPayment,
        Self::V2Payout,
        Self::V1CardPayout,
        Self::V2CardTopUp,
        Self::V1CardWithdraw,
        Self::V1TransferOrderSubmit,
    ];

    /// The name the journal stores (the wire operation's `NAME`).
    pub fn name(self) -> &'static str {
        use paydesk_gateway::wire::{self, Operation};
        match self {
            Self::V2Payment => wire::V2Payment::NAME,
            Self::V1Payment => wire::V1Payment::NAME,
            Self::V1VnBankPayment => wire::V1VnBankPayment::NAME,
            Self::V2Payout => wire::V2Payout::NAME,
            Self::V1CardPayout => wire::V1CardPayout::NAME,
            Self::V2CardTopUp => wire::V2CardTopUp::NAME,
            Self::V1CardWithdraw => wire::V1CardWithdraw::NAME,
            Self::V1TransferOrderSubmit => wire::V1TransferOrderSubmit::NAME,
        }
    }

    /// The operation the journal stores as `name`, if this PayDesk knows it.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|o| o.name() == name)
    }

    /// Whether the gateway can be asked about the outcome (by the merchant order number
    /// in the order list): not for a card withdrawal or a review submission, which carry
    /// only this desk's own reference.
    pub fn can_be_looked_up(self) -> bool {
        !matches!(self, Self::V1CardWithdraw | Self::V1TransferOrderSubmit)
    }
}

/// The kind of order an operation makes (what the order list would show it as).
pub fn kind_of(operation: JournalOperation) -> paydesk_gateway::OrderKind {
    use paydesk_gateway::OrderKind;
    match operation {
        JournalOperation::V2Payment
        | JournalOperation::V1Payment
        | JournalOperation::V1VnBankPayment
        // A review submission is about a payin (it is never listed: not looked up).
        | JournalOperation::V1TransferOrderSubmit => OrderKind::Payin,
        JournalOperation::V2Payout | JournalOperation::V1CardPayout => OrderKind::Payout,
        JournalOperation::V2CardTopUp => OrderKind::TopUp,
        JournalOperation::V1CardWithdraw => OrderKind::Withdraw,
    }
}

impl std::fmt::Display for JournalOperation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How long a claim on an entry lasts when its holder cannot be seen to have died:
/// longer than any request's time limit.
pub const CLAIM_LEASE_MS: i64 = 120_000;

/// A claim this process holds on an entry: only its holder sends or looks it up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim(pub String);

/// What a new intent is.
#[derive(Debug, Clone, Copy)]
pub struct Intent<'a> {
    pub operation: &'a str,
    pub mer_order_no: &'a str,
    /// The request as it will be sent (masked before it is stored).
    pub request: &'a Value,
    pub summary: &'a str,
    /// [`fingerprint`] of the request.
    pub fingerprint: &'a str,
    /// Why the money moves (checked by the engine), stored with the entry.
    pub purpose: Option<&'a crate::purpose::Purpose>,
}

/// The rule against paying one intent twice under two numbers.
#[derive(Debug, Clone, Copy)]
pub struct Guard {
    /// An accepted entry with the same fingerprint younger than this is a duplicate.
    pub window_ms: i64,
    /// The operator confirmed that this is a second, deliberate one.
    pub allow_duplicate: bool,
}

/// What [`begin`] found.
#[derive(Debug, Clone, PartialEq)]
pub enum Begin {
    /// A new intent, written as `sending` and claimed: send it now.
    Send(Entry, Claim),
    /// An existing entry that was safe to send again (`pending`), now `sending` and
    /// claimed.
    Resend(Entry, Claim),
    /// An entry that must not be sent now: finished, in flight, or unknown.
    Exists(Entry),
    /// A new number, but the same intent is unresolved or was accepted within the
    /// window: the earlier entry. Nothing was written.
    Duplicate(Entry),
    /// The number is in the journal for another request (a reused number must carry
    /// the same request). Nothing was written.
    Mismatch(Entry),
}

/// An answer (or the lack of one) to record.
#[derive(Debug, Clone, Copy)]
pub struct Outcome<'a> {
    pub status: Status,
    pub trade_no: Option<&'a str>,
    pub code: Option<&'a str>,
    pub message: Option<&'a str>,
}

#[cfg(test)]
mod tests {
    use super::Status::{self, *};

    #[test]
    fn the_transition_table() {
        // Written out by hand: the finish rule as the journal has kept it.
        for from in Status::ALL {
            for to in Status::ALL {
                let expected = match (from, to) {
                    (Accepted, _) => false,
                    (Rejected, Accepted) => true,
                    (Rejected, _) => false,
                    _ => true,
                };
                assert_eq!(from.may_finish_as(to), expected, "{from:?} -> {to:?}");
            }
        }
        assert_eq!(
            Status::finishing_as(Accepted),
            [Pending, Sending, Rejected, Unknown]
        );
        assert_eq!(Status::finishing_as(Rejected), [Pending, Sending, Unknown]);
        assert!(
            Status::LIVE
                .iter()
                .all(|s| !matches!(s, Accepted | Rejected))
        );
        assert!(Status::UNSETTLED.iter().all(|s| Status::LIVE.contains(s)));
    }

    #[test]
    fn a_status_reads_back_as_written() {
        for s in Status::ALL {
            assert_eq!(Status::parse(s.as_str()), s);
        }
    }
}
