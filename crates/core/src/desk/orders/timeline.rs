//! One order's timeline: what the desk knows happened to it, from every table that keeps
//! a part (the state history, the journal, refunds and chargebacks, notifications,
//! review submissions and the audit log), in time order.

use serde::{Deserialize, Serialize};

use crate::audit::AuditFilter;
use crate::error::CoreResult;
use crate::journal::{JournalOperation, Status};

/// One thing that happened to an order, with when the desk learned of it (UTC millis).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum TimelineEvent {
    /// The order was seen in `state` (a list state code): `how` is `made here`,
    /// `first seen` or `sync`. `day_only`: `at` is the day the gateway's list dates the
    /// order by (no time of day is known), not a moment.
    #[serde(rename_all = "camelCase")]
    State {
        at: i64,
        state: i64,
        how: String,
        #[serde(default)]
        day_only: bool,
    },
    /// A journal entry about the order (the request that made it, a card operation, a
    /// review submission) as it stands now.
    #[serde(rename_all = "camelCase")]
    Request {
        at: i64,
        id: i64,
        operation: JournalOperation,
        status: Status,
        mer_order_no: String,
        code: Option<String>,
        /// Why the money moved, as given when the entry was written (issue 35); none
        /// when no purpose was recorded.
        #[serde(default)]
        purpose: Option<crate::purpose::Purpose>,
    },
    /// A refund or chargeback as a query last gave it (`at` is when it was fetched).
    #[serde(rename_all = "camelCase")]
    Reversal {
        at: i64,
        kind: String,
        refund_no: String,
        state: String,
        amount: Option<String>,
        currency: String,
    },
    /// A notification the gateway sent about the order.
    #[serde(rename_all = "camelCase")]
    Notification {
        at: i64,
        id: i64,
        kind: String,
        signature_ok: bool,
    },
    /// Review documents submitted for the order.
    #[serde(rename_all = "camelCase")]
    Review {
        at: i64,
        reference: String,
        info_count: i64,
        files: String,
        outcome: String,
        /// Each file sent: name, type, size and SHA-256.
        #[serde(default)]
        evidence: Vec<crate::store::reviews::FileEvidence>,
    },
    /// An audit entry naming the order.
    #[serde(rename_all = "camelCase")]
    Audit {
        at: i64,
        id: i64,
        operation: String,
        operator: String,
        result: String,
    },
}

impl TimelineEvent {
    pub fn at(&self) -> i64 {
        match self {
            TimelineEvent::State { at, .. }
            | TimelineEvent::Request { at, .. }
            | TimelineEvent::Reversal { at, .. }
            | TimelineEvent::Notification { at, .. }
            | TimelineEvent::Review { at, .. }
            | TimelineEvent::Audit { at, .. } => *at,
        }
    }
}

/// Audit operations that only read the gateway: left out of a timeline.
const READS: &[&str] = &[
    "v2.order.query",
    "v2.order.queryOrderList",
    "v1.order.query",
    "v2.balance.query",
];

/// Whether an audit entry's identifiers (`key=value` words) name one of `numbers`
/// exactly (a search for `T100` must not take `T1001`).
fn names_any(identifiers: &str, numbers: &[&str]) -> bool {
    identifiers
        .split_whitespace()
        // A purpose and its reference come last, quoted free text: never an identifier.
        .take_while(|w| !w.starts_with("purpose=\"") && !w.starts_with("ref=\""))
        .filter_map(|w| w.split_once('=').map(|(_, v)| v.trim_end_matches(',')))
        .any(|v| numbers.iter().any(|n| !n.is_empty() && v == *n))
}

impl<'d> super::Orders<'d> {
    /// What the desk knows happened to one order, oldest first (no request).
    pub fn order_timeline(&self, trade_no: &str) -> CoreResult<Vec<TimelineEvent>> {
        let trade_no = trade_no.trim();
        let (mer_order_no, listed_day, history) = {
            let orders = self.desk.store.orders();
            let order = orders.get(trade_no)?;
            // An order the desk did not make is dated by the list's day only.
            let listed_day = order
                .as_ref()
                .filter(|o| o.made_at.is_none())
                .map(|o| o.created_at);
            let mer = order.map(|o| o.mer_order_no).unwrap_or_default();
            (mer, listed_day, orders.history(trade_no)?)
        };
        let mut events: Vec<TimelineEvent> = history
            .into_iter()
            .map(|(state, at, how)| TimelineEvent::State {
                day_only: how == "first seen" && listed_day == Some(at),
                at,
                state,
                how,
            })
            .collect();
        let entries =
            self.desk
                .store
                .journal()
                .of_order(&self.desk.profile.name, trade_no, &mer_order_no)?;
        events.extend(entries.into_iter().map(|e| TimelineEvent::Request {
            at: e.sent_at.unwrap_or(e.created_at),
            id: e.id,
            operation: e.operation,
            status: e.status,
            mer_order_no: e.mer_order_no,
            code: e.code,
            purpose: e.purpose,
        }));
        let reversals = self.desk.store.reversals().list(Some(trade_no))?;
        events.extend(reversals.into_iter().map(|r| TimelineEvent::Reversal {
            at: r.fetched_at,
            kind: r.kind,
            refund_no: r.refund_no,
            state: r.state,
            amount: r.amount,
            currency: r.currency,
        }));
        let notes = self.desk.store.notifications().of_order(trade_no)?;
        events.extend(notes.into_iter().map(|n| TimelineEvent::Notification {
            at: n.received_at,
            id: n.id,
            kind: n.kind,
            signature_ok: n.signature_ok,
        }));
        let reviews = self.desk.store.reviews().latest(Some(trade_no))?;
        events.extend(reviews.into_iter().map(|r| TimelineEvent::Review {
            at: r.at,
            reference: r.reference,
            info_count: r.info_count,
            files: r.files,
            outcome: r.outcome,
            evidence: r.evidence,
        }));
        let numbers = [trade_no, mer_order_no.as_str()];
        let mut audited = Vec::new();
        for n in numbers.iter().filter(|n| !n.is_empty()) {
            let found = self.desk.store.audit().list(&AuditFilter {
                text: Some((*n).to_string()),
                limit: Some(200),
                ..AuditFilter::default()
            })?;
            for a in found {
                // Lookups (opening this page is one) say nothing happened to the order.
                if READS.contains(&a.operation.as_str()) {
                    continue;
                }
                if names_any(&a.identifiers, &numbers)
                    && !audited
                        .iter()
                        .any(|x: &crate::audit::AuditEntry| x.id == a.id)
                {
                    audited.push(a);
                }
            }
        }
        events.extend(audited.into_iter().map(|a| TimelineEvent::Audit {
            at: a.at,
            id: a.id,
            operation: a.operation,
            operator: a.operator,
            result: a.result,
        }));
        // Stable: what happened at the same millisecond keeps the order of its sources.
        events.sort_by_key(TimelineEvent::at);
        Ok(events)
    }
}

#[cfg(test)]
mod tests {
    use super::names_any;

    #[test]
    fn an_audit_entry_names_an_order_only_by_a_whole_number() {
        let ids = "merOrderNo=PD-1 tradeNo=T1001 amount=10.00";
        assert!(names_any(ids, &["T1001", ""]));
        assert!(names_any(ids, &["X", "PD-1"]));
        assert!(!names_any(ids, &["T100", ""]));
        assert!(!names_any(ids, &["", ""]));
        // A purpose's words never name an order, whatever they hold.
        let ids = r#"merOrderNo=PD-1 amount=1 MXN purpose="a b=T100 c" ref="x=T200""#;
        assert!(names_any(ids, &["PD-1", ""]));
        assert!(!names_any(ids, &["T100", "T200"]));
    }
}
