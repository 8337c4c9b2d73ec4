//! Orders this desk makes are in the order cache the moment the gateway accepts them,
//! with what the journal knows and the gateway's list does not say (the kind, the
//! method, the time it was made). The next sync confirms them and brings their state.

use paydesk_gateway::SignatureStatus;
use paydesk_gateway::wire::{MerNo, OrderListItem, V2OrderList};
use paydesk_gateway::{Meaning, StateDictionary, StateField};
use rust_decimal::Decimal;
use serde_json::Value;

use crate::desk::Desk;
use crate::error::CoreResult;
use crate::journal::Entry;
use crate::store::journal::JournalOperation;
use crate::store::orders::{MadeOrder, OrderKind};

/// What an operation makes: its kind, its method when the operation names it, and the
/// request's members that hold its amount and currency. `None`: it makes no order.
fn shape(op: JournalOperation) -> Option<(OrderKind, &'static str, &'static str, &'static str)> {
    use JournalOperation as Op;
    Some(match op {
        // The interface's V2 payin is the wallet payin (`paymentType` WECHAT).
        Op::V2Payment => (OrderKind::Payin, "WECHAT", "sourceAmount", "currencyCode"),
        Op::V1Payment => (OrderKind::Payin, "", "sourceAmount", "currencyCode"),
        Op::V1VnBankPayment => (OrderKind::Payin, "VN_BANK", "sourceAmount", "currencyCode"),
        Op::V2Payout => (OrderKind::Payout, "CLABE", "sourceAmount", "currencyCode"),
        Op::V1CardPayout => (OrderKind::Payout, "CARD", "sourceAmount", "currencyCode"),
        Op::V2CardTopUp => (OrderKind::TopUp, "CARD", "amount", "currency"),
        Op::V1CardWithdraw => (OrderKind::Withdraw, "CARD", "amount", "currency"),
        Op::V1TransferOrderSubmit => return None,
    })
}

/// The kind of order an entry's operation makes, if it makes one.
pub fn intended_kind(entry: &Entry) -> Option<OrderKind> {
    shape(entry.operation).map(|s| s.0)
}

/// The amount and currency an entry's request carries, if it carries both.
pub fn intended_money(entry: &Entry) -> Option<(Decimal, String)> {
    let (_, _, amount_key, currency_key) = shape(entry.operation)?;
    let text = |key: &str| match entry.request.get(key) {
        Some(Value::String(s)) => Some(s.trim().to_string()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let amount: Decimal = text(amount_key)?.parse().ok()?;
    let currency = text(currency_key).filter(|c| !c.is_empty())?;
    Some((amount, currency))
}

/// The order an accepted journal entry made, if it made one the cache can hold: a trade
/// number, a kind, an amount and a currency in its request. `method` is the payin method
/// where the caller knows it (it travels in a header, not in the request kept); payouts,
/// top-ups and withdrawals name theirs by their operation. `state` is the order-list
/// state the answer implies.
pub fn made_order(entry: &Entry, method: Option<&str>, state: Option<i64>) -> Option<MadeOrder> {
    let trade_no = entry.trade_no.clone().filter(|t| !t.is_empty())?;
    let (kind, by_operation, _, _) = shape(entry.operation)?;
    let (amount, currency) = intended_money(entry)?;
    Some(MadeOrder {
        trade_no,
        mer_order_no: entry.mer_order_no.clone(),
        kind,
        method: method
            .filter(|m| !m.is_empty())
            .unwrap_or(by_operation)
            .to_string(),
        currency,
        amount,
        state,
        made_at: entry.sent_at.unwrap_or(entry.created_at),
    })
}

/// The order-list state a fresh answer implies: the state meaning what its `payCode`
/// means (pending, success, failed; "created" for a code the dictionary does not know);
/// `None` without a payCode, or if the profile's dictionary has no such state.
pub fn made_state(dictionary: &StateDictionary, pay_code: Option<i64>) -> Option<i64> {
    let meaning = dictionary
        .meaning(StateField::PayCode, &pay_code?.to_string())
        .unwrap_or(Meaning::Created);
    let state_of = |m: Meaning| {
        dictionary
            .entries(StateField::OrderState)
            .filter(|(_, meaning)| *meaning == m)
            .find_map(|(raw, _)| raw.parse::<i64>().ok())
    };
    state_of(meaning).or_else(|| state_of(Meaning::Created))
}

/// How long a row read from the list stays fresh enough not to be read again when its
/// page opens.
const RELIST_AFTER_MS: i64 = 60_000;

impl Desk {
    /// Reads a cached order again from the gateway's order list and caches what it
    /// says, as a sync would: what the order page shows live is what the cache keeps.
    /// An order the cache does not hold is left for a sync (the list gives no date to
    /// file it under). Returns whether the list showed it.
    pub(in crate::desk) async fn relist(&self, trade_no: &str) -> CoreResult<bool> {
        let Some(cached) = self.store.orders().get(trade_no)? else {
            return Ok(false);
        };
        // In a final state and read from the list within the last minute: as fresh as a
        // sync would make it, so no request (and no audit entry) each time its page
        // opens. An order that can still move by itself is always read again.
        let is_final = self
            .dictionary()
            .meaning(StateField::OrderState, &cached.state.to_string())
            .is_some_and(|m| m.is_final());
        let fresh = cached
            .synced_at
            .is_some_and(|at| self.clock.now_ms() - at < RELIST_AFTER_MS);
        if is_final && fresh {
            return Ok(false);
        }
        let op = V2OrderList {
            mer_no: MerNo(self.profile.mer_no),
            mer_order_nos: vec![],
            trade_nos: vec![trade_no.to_string()],
            date_limit: None,
            page_num: 1,
            page_size: 10,
            version: V2OrderList::VERSION.into(),
        };
        let a = self.query(&op, format!("tradeNo={trade_no}")).await?;
        crate::answers::order_page(&a.data, 10)?;
        let verified = a.signature == SignatureStatus::Verified;
        let (items, _refused) = crate::answers::usable_items(a.data.list);
        // Only the order the cache holds: the same trade and merchant order numbers.
        let Some(item) = items
            .into_iter()
            .find(|i| i.trade_no == trade_no && i.mer_order_no == cached.mer_order_no)
        else {
            return Ok(false);
        };
        self.cache_listed(&item, self.now_ms(), verified);
        Ok(true)
    }

    /// Caches what a live answer of the order list said of one order (a lookup), as a
    /// sync would: the cache shows what the gateway last said.
    pub(in crate::desk) fn cache_listed(
        &self,
        item: &OrderListItem,
        created_at: i64,
        verified: bool,
    ) {
        // Checked against the desk's rules as a sync checks every item.
        let (kept, refused) = crate::answers::usable_items(vec![item.clone()]);
        if kept.is_empty() {
            tracing::warn!(trade_no = %item.trade_no, ?refused, "listed order not cached: it breaks the desk's rules");
            return;
        }
        let r = self.store.orders().upsert_items(
            self.profile.mer_no,
            std::slice::from_ref(item),
            created_at,
            verified,
        );
        if let Err(e) = r {
            tracing::warn!(error = %e, trade_no = %item.trade_no, "listed order not cached");
        }
        self.orders_changed();
    }

    /// Labels the orders a list has shown that this desk made but could not cache when
    /// the gateway accepted them: an answer with no trade number (a card top-up answers
    /// with no data: matched by merchant order number), or no state (a card withdrawal,
    /// whose order the gateway numbers itself: matched by the trade number it answered).
    /// Only an order of no known kind is labelled. Without it the reconciliation would
    /// count a top-up or a withdrawal as a payin. The cache is a view: a failure is
    /// logged.
    pub(in crate::desk) fn label_listed_made(&self) {
        let label = || -> CoreResult<()> {
            let names: Vec<&str> = JournalOperation::ALL.iter().map(|o| o.name()).collect();
            let entries = self.store.journal().list(
                &self.profile.name,
                &[crate::journal::Status::Accepted],
                &names,
                1_000,
            )?;
            let orders = self.store.orders();
            for e in &entries {
                let cached = match e.trade_no.as_deref().filter(|t| !t.is_empty()) {
                    Some(t) => orders.get(t)?,
                    None => orders.by_mer_order_no(&e.mer_order_no)?,
                };
                let Some(cached) = cached.filter(|c| c.kind.is_none()) else {
                    continue;
                };
                let mut entry = e.clone();
                entry.trade_no = Some(cached.trade_no);
                entry.mer_order_no = cached.mer_order_no;
                if let Some(order) = made_order(&entry, None, None) {
                    orders.record_made(self.profile.mer_no, &order)?;
                }
            }
            Ok(())
        };
        if let Err(e) = label() {
            tracing::warn!(error = %e, "orders made here not labelled");
        }
    }

    /// Labels the cached orders of no known kind by the conventions' `kindRules` (the
    /// longest prefix first, so it wins). Only a desk that holds the key writes the
    /// cache. The cache is a view: a failure is logged.
    pub(in crate::desk) fn label_by_rules(&self) {
        if !self.holds_key() || self.conventions.kind_rules.is_empty() {
            return;
        }
        let mut rules = self.conventions.kind_rules.clone();
        rules.sort_by_key(|r| std::cmp::Reverse(r.prefix.len()));
        let orders = self.store.orders();
        for r in rules.iter().filter(|r| !r.prefix.is_empty()) {
            if let Err(e) = orders.label_kind(&r.prefix, r.kind) {
                tracing::warn!(error = %e, prefix = %r.prefix, "orders not labelled by a kind rule");
            }
        }
    }

    /// [`Desk::cache_made`] of several entries, in one transaction of the cache.
    pub(in crate::desk) fn cache_made_many(&self, made: &[(Entry, &str, Option<i64>)]) {
        let orders: Vec<_> = made
            .iter()
            .filter_map(|(entry, method, pay_code)| {
                made_order(entry, Some(method), made_state(&self.dictionary, *pay_code))
            })
            .collect();
        if orders.is_empty() {
            return;
        }
        let written = self.store.cache_atomic(|tx| {
            for o in &orders {
                tx.orders.record_made(self.profile.mer_no, o)?;
            }
            Ok(())
        });
        if let Err(e) = written {
            tracing::warn!(error = %e, "orders made here not cached");
        }
        self.orders_changed();
    }

    /// Caches the order an accepted entry made (see [`made_order`]). The cache is a
    /// view: a failure here is logged and the next sync brings the order anyway.
    pub(in crate::desk) fn cache_made(
        &self,
        entry: &Entry,
        method: Option<&str>,
        pay_code: Option<i64>,
    ) {
        let state = made_state(&self.dictionary, pay_code);
        let Some(order) = made_order(entry, method, state) else {
            return;
        };
        match self.store.orders().record_made(self.profile.mer_no, &order) {
            Ok(true) => {}
            Ok(false) if state.is_some() => tracing::warn!(
                trade_no = %order.trade_no,
                "the cache holds this trade number under another order number: not relabelled"
            ),
            Ok(false) => {}
            Err(e) => {
                tracing::warn!(error = %e, trade_no = %order.trade_no, "order made here not cached")
            }
        }
        self.orders_changed();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::Status;

    fn entry(operation: JournalOperation, request: Value, trade_no: Option<&str>) -> Entry {
        Entry {
            id: 1,
            profile: "p".into(),
            operation,
            mer_order_no: "PO-1".into(),
            request,
            summary: String::new(),
            status: Status::Accepted,
            trade_no: trade_no.map(String::from),
            code: None,
            message: None,
            attempts: 1,
            created_at: 1_795_000_123_456,
            updated_at: 1_795_000_124_000,
            next_check_at: None,
            fingerprint: String::new(),
            sent_at: None,
            lookups: 0,
            resolution: None,
            can_be_looked_up: operation.can_be_looked_up(),
            purpose: None,
        }
    }

    #[test]
    fn an_accepted_entry_makes_an_order_with_what_the_journal_knows() {
        let clabe = entry(
            JournalOperation::V2Payout,
            serde_json::json!({"sourceAmount": "1500.00", "currencyCode": "MXN", "clabe": "002010******7771"}),
            Some("T1"),
        );
        let o = made_order(&clabe, None, Some(2)).unwrap();
        assert_eq!(o.kind, OrderKind::Payout);
        assert_eq!(o.method, "CLABE");
        assert_eq!(
            (o.currency.as_str(), o.amount.to_string().as_str()),
            ("MXN", "1500.00")
        );
        assert_eq!(
            o.made_at, 1_795_000_123_456,
            "the time the journal recorded the intent"
        );
        assert_eq!(o.state, Some(2));

        let payin = entry(
            JournalOperation::V1Payment,
            serde_json::json!({"sourceAmount": "88.5", "currencyCode": "EUR"}),
            Some("T2"),
        );
        assert_eq!(
            made_order(&payin, Some("SEPA"), Some(1)).unwrap().method,
            "SEPA"
        );
        assert_eq!(
            made_order(&payin, None, Some(1)).unwrap().method,
            "",
            "not known: not invented"
        );

        let withdraw = entry(
            JournalOperation::V1CardWithdraw,
            serde_json::json!({"amount": "10", "currency": "USD"}),
            Some("T3"),
        );
        assert_eq!(
            made_order(&withdraw, None, None).unwrap().kind,
            OrderKind::Withdraw
        );

        // No trade number, a review submission, or no amount: nothing to cache.
        assert!(
            made_order(
                &entry(JournalOperation::V2Payout, clabe.request.clone(), None),
                None,
                Some(2)
            )
            .is_none()
        );
        assert!(
            made_order(
                &entry(
                    JournalOperation::V1TransferOrderSubmit,
                    Value::Null,
                    Some("T4")
                ),
                None,
                Some(2)
            )
            .is_none()
        );
        assert!(
            made_order(
                &entry(
                    JournalOperation::V2Payout,
                    serde_json::json!({"currencyCode": "MXN"}),
                    Some("T5")
                ),
                None,
                Some(2)
            )
            .is_none()
        );
    }

    #[test]
    fn the_state_of_a_fresh_order_is_what_its_pay_code_means() {
        let d = StateDictionary::default();
        assert_eq!(
            made_state(&d, Some(2)),
            Some(2),
            "payCode 2 pending: state 2 pending"
        );
        assert_eq!(
            made_state(&d, Some(0)),
            Some(5),
            "payCode 0 success: state 5 success"
        );
        assert_eq!(
            made_state(&d, Some(1)),
            Some(3),
            "payCode 1 failed: state 3 failed"
        );
        assert_eq!(
            made_state(&d, None),
            None,
            "no payCode: no state is invented"
        );
        assert_eq!(
            made_state(&d, Some(99)),
            Some(1),
            "an unknown payCode: created"
        );
    }
}
