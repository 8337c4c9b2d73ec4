//! The review desk (issue 36): the queue of bank-transfer orders that need or have
//! review documents, and files for several orders matched to them by name.

use std::collections::HashMap;

use crate::error::CoreResult;
use crate::review_match::{FileMatch, OrderNumbers};
use crate::store::orders::{OrderFilter, OrderKind};
use crate::store::reviews::{ReviewQueueItem, ReviewStatus, ReviewSubmission};

/// The most open bank-transfer orders the queue reads (oldest first).
const QUEUE_OPEN: i64 = 500;

/// The gateway's last review decision in an EDD notification received after `after`:
/// `approved` or `rejected` (the sandbox's `reviewStatus`).
fn decision_after(notes: &[crate::store::notifications::Stored], after: i64) -> Option<String> {
    notes
        .iter()
        .filter(|n| n.received_at >= after && n.kind.eq_ignore_ascii_case("edd"))
        .filter_map(|n| {
            let body: serde_json::Value = serde_json::from_str(&n.body).ok()?;
            let status = body.get("reviewStatus")?.as_str()?.to_ascii_lowercase();
            Some((n.received_at, status))
        })
        .max_by_key(|(at, _)| *at)
        .map(|(_, s)| s)
}

impl<'d> super::Records<'d> {
    /// The bank-transfer orders that need review documents (open, none sent) or have
    /// some (every order a submission was made for), with their status and age; those
    /// that ask something of a person first, oldest first. An order is a bank transfer
    /// when the desk knows its method is SEPA (made here) or the gateway sent a
    /// bank-transfer review (EDD) notification about it.
    pub fn review_queue(&self) -> CoreResult<Vec<ReviewQueueItem>> {
        let now = self.desk.clock.now_ms();
        let open_states = self.desk.open_states();
        let filter = OrderFilter {
            methods: vec!["SEPA".into()],
            states: open_states.clone(),
            kinds: vec![OrderKind::Payin],
            unknown_kind: true,
            ..OrderFilter::default()
        };
        let open = self.desk.store.orders().query(&filter, 0, QUEUE_OPEN)?.rows;
        // Each order's submissions, newest first.
        let mut by_order: HashMap<String, Vec<ReviewSubmission>> = HashMap::new();
        for s in self.desk.store.reviews().latest(None)? {
            by_order.entry(s.trade_no.clone()).or_default().push(s);
        }
        // The gateway's bank-transfer review (EDD) notifications name orders too, whatever
        // the desk knows of their method (the order list does not give it).
        let named: Vec<String> = self
            .desk
            .store
            .notifications()
            .latest(1000)?
            .into_iter()
            .filter(|n| n.kind.eq_ignore_ascii_case("edd") && !n.trade_no.is_empty())
            .map(|n| n.trade_no)
            .collect();
        let mut orders = open;
        for trade_no in by_order.keys().chain(named.iter()) {
            if !orders.iter().any(|o| &o.trade_no == trade_no)
                && let Some(o) = self.desk.store.orders().get(trade_no)?
            {
                orders.push(o);
            }
        }
        let mut queue = Vec::new();
        for o in &orders {
            let subs = by_order.get(&o.trade_no);
            let latest = subs.and_then(|s| s.first());
            let decision = match latest {
                Some(l) if l.outcome == "accepted" => {
                    let notes = self.desk.store.notifications().of_order(&o.trade_no)?;
                    decision_after(&notes, l.at)
                }
                _ => None,
            };
            let is_open = open_states.contains(&o.state);
            let Some(status) = ReviewStatus::of(is_open, latest, decision.as_deref()) else {
                continue;
            };
            let since = latest.map_or(o.created_at, |l| l.at);
            queue.push(ReviewQueueItem {
                trade_no: o.trade_no.clone(),
                mer_order_no: o.mer_order_no.clone(),
                state: o.state,
                currency: o.currency.clone(),
                amount: o.source_amount.clone(),
                status,
                since,
                age_secs: ((now - since) / 1000).max(0),
                submissions: subs.map_or(0, |s| s.len() as i64),
                reference: latest.map(|l| l.reference.clone()),
                files: latest.map_or(0, |l| l.evidence.len() as i64),
            });
        }
        // A submission for an order the cache does not hold yet stays in view.
        for (trade_no, subs) in &by_order {
            if orders.iter().any(|o| &o.trade_no == trade_no) {
                continue;
            }
            let latest = &subs[0];
            let Some(status) = ReviewStatus::of(false, Some(latest), None) else {
                continue;
            };
            queue.push(ReviewQueueItem {
                trade_no: trade_no.clone(),
                mer_order_no: String::new(),
                state: 0,
                currency: String::new(),
                amount: String::new(),
                status,
                since: latest.at,
                age_secs: ((now - latest.at) / 1000).max(0),
                submissions: subs.len() as i64,
                reference: Some(latest.reference.clone()),
                files: latest.evidence.len() as i64,
            });
        }
        queue.sort_by_key(|q| (!q.status.needs_action(), q.since));
        Ok(queue)
    }

    /// Files for several orders, each matched by the order number in its name to an
    /// order of the review queue (see [`crate::review_match`]).
    pub fn review_match(&self, paths: &[String]) -> CoreResult<Vec<FileMatch>> {
        let orders: Vec<OrderNumbers> = self
            .review_queue()?
            .into_iter()
            .map(|q| OrderNumbers {
                trade_no: q.trade_no,
                mer_order_no: q.mer_order_no,
            })
            .collect();
        Ok(crate::review_match::match_files(paths, &orders))
    }
}
