//! The order cache's rows: an order as cached, one this desk made, the filter and sort
//! of the orders table, a page and its anchors, a day's figures, a statement's groups
//! (`orders`).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// An order as the cache holds it.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CachedOrder {
    pub trade_no: String,
    pub mer_order_no: String,
    pub state: i64,
    pub method: String,
    pub currency: String,
    pub source_amount: String,
    pub handling_fee: Option<String>,
    pub receive_amount: Option<String>,
    pub settle_amount: Option<String>,
    pub rolling_reserve: Option<String>,
    pub transaction_fixed_fee: Option<String>,
    pub refund_amount: Option<String>,
    pub refund_currency: String,
    pub settlement_currency: String,
    pub rolling_reserve_status: Option<i64>,
    pub settle: Option<i64>,
    pub refusal_pay_reason: String,
    pub message: String,
    /// UTC millis: when this desk made the order if it did ([`CachedOrder::made_at`]),
    /// else the start of the list window it was found in (its day: the list carries no
    /// time of day).
    pub created_at: i64,
    /// When a sync last read it from the gateway's list; `None` for an order this desk
    /// made that no list has shown yet.
    pub synced_at: Option<i64>,
    pub signature_verified: bool,
    /// Payin, payout, top-up or withdrawal, where the journal knows it (the list does
    /// not say); `None`: not given by the gateway.
    pub kind: Option<OrderKind>,
    /// UTC millis when this desk (or a colleague on the same journal) made the order;
    /// `None` when only its day is known.
    pub made_at: Option<i64>,
    /// `exceptionHandlingFee` as the list gave it.
    pub exception_handling_fee: Option<String>,
    /// On a team's read model: no journal of the team made this order (the gateway's
    /// list shows it, the team's journal has no accepted request for it): made outside
    /// this team, by another tool or a desk with the merchant key on a plain profile.
    /// What screens and reports go by to say so, and not to take it for one of the
    /// team's payins. Always false on a single desk's own cache (then left out of what is sent).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub outside_team: bool,
}

/// What an order is, as the journal that made it knows (or the conventions' rules on
/// its number).
pub use paydesk_gateway::OrderKind;

/// An order this desk made, as the journal knows it the moment the gateway accepts it:
/// cached at once, confirmed (and its state updated) by the next sync.
#[derive(Debug, Clone, PartialEq)]
pub struct MadeOrder {
    pub trade_no: String,
    pub mer_order_no: String,
    pub kind: OrderKind,
    /// `''` when not known.
    pub method: String,
    pub currency: String,
    pub amount: Decimal,
    /// The order-list state the answer implies (the dictionary's reading of its
    /// payCode); `None` when the answer gave none: then the order is not cached from the
    /// journal alone (no state is invented), only added to a row a list already gave.
    pub state: Option<i64>,
    /// UTC millis when the request that the gateway accepted left (the intent's time if
    /// the journal has no sending time).
    pub made_at: i64,
}

/// An amount times 10^4 as an exact integer (amounts have at most 4 decimals here).
pub fn amount_e4(d: Decimal) -> i64 {
    let mut d = d;
    d.rescale(4);
    i64::try_from(d.mantissa()).unwrap_or(i64::MAX)
}

/// Sort keys of the orders table.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SortKey {
    #[default]
    Created,
    Amount,
    State,
    TradeNo,
}

/// Filters of the orders table; every one optional.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OrderFilter {
    /// UTC millis, inclusive.
    pub from: Option<i64>,
    /// UTC millis, exclusive.
    pub to: Option<i64>,
    /// Seen moving the balance at or after (UTC millis; `moved_at`, or for a payout,
    /// top-up or withdrawal this desk made, its journal time: see [`crate::reconcile`]).
    pub moved_from: Option<i64>,
    /// Seen moving the balance before (UTC millis).
    pub moved_to: Option<i64>,
    pub states: Vec<i64>,
    pub currencies: Vec<String>,
    pub methods: Vec<String>,
    /// Orders of these kinds (as the journal knows them).
    pub kinds: Vec<OrderKind>,
    /// Also (or, with no `kinds`, only) the orders whose kind the journal does not know
    /// (the gateway's list does not say).
    pub unknown_kind: bool,
    /// `settle` values (the dictionary's: 0 not settled, 1 settled); -1: not given.
    pub settles: Vec<i64>,
    /// `rollingReserveStatus` values (0 held, 1 released); -1: not given.
    pub reserve_statuses: Vec<i64>,
    /// Only orders with a refunded amount above zero (`true`), or none (`false`).
    #[cfg_attr(feature = "specta", specta(optional))]
    pub refunded: Option<bool>,
    /// Orders whose `refusalPayReason` is exactly one of these (`''`: the gateway gave
    /// none); `None`: any. What a failure figure opens (issue 36).
    #[cfg_attr(feature = "specta", specta(optional))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasons: Option<Vec<String>>,
    /// Orders whose `message` (the gateway's text or code of the order) is exactly one
    /// of these (`''`: none given); `None`: any.
    #[cfg_attr(feature = "specta", specta(optional))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<String>>,
    pub min_amount: Option<String>,
    pub max_amount: Option<String>,
    /// A fragment of the order or trade number.
    pub search: Option<String>,
    pub sort: SortKey,
    pub descending: bool,
}

impl OrderFilter {
    /// Every order dated in `[from, to)` (UTC millis), nothing else filtered.
    pub fn dated(from: i64, to: i64) -> Self {
        OrderFilter {
            from: Some(from),
            to: Some(to),
            ..OrderFilter::default()
        }
    }

    /// The `kind` column's values the filter asks for (`''`: not known); empty: any.
    pub fn kind_names(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = self.kinds.iter().map(|k| k.as_str()).collect();
        if self.unknown_kind {
            names.push("");
        }
        names
    }

    /// A stable key for caching anchors of this filter and sort.
    pub fn cache_key(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// One page of the orders table.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderPage {
    pub rows: Vec<CachedOrder>,
    /// Rows matching the filter in all.
    pub total: i64,
    pub offset: i64,
}

/// A row's sort key: a number (the date, the amount, the state) or a text (the trade
/// number).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SortValue {
    Number(i64),
    Text(String),
}

/// The sort key of a row, for reading a page as "after this row".
#[derive(Debug, Clone, PartialEq)]
pub struct Anchor {
    value: SortValue,
    id: i64,
}

impl Anchor {
    /// An anchor of a sort on a number (the date, the amount, the state).
    pub fn number(value: i64, id: i64) -> Self {
        Anchor {
            value: SortValue::Number(value),
            id,
        }
    }

    /// An anchor of a sort on a text (the trade number).
    pub fn text(value: String, id: i64) -> Self {
        Anchor {
            value: SortValue::Text(value),
            id,
        }
    }

    /// The sort key as a number or a text, and the row's id.
    pub fn key(&self) -> (Option<i64>, Option<&str>, i64) {
        match &self.value {
            SortValue::Number(v) => (Some(*v), None, self.id),
            SortValue::Text(t) => (None, Some(t.as_str()), self.id),
        }
    }
}

/// Rows between two anchors.
pub const ANCHOR_EVERY: i64 = 10_000;

/// The sort keys of every `ANCHOR_EVERY`-th row of a filtered, sorted set, and how many
/// rows it has.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Anchors {
    keys: Vec<Anchor>,
    pub total: i64,
}

impl Anchors {
    pub fn new(keys: Vec<Anchor>, total: i64) -> Self {
        Anchors { keys, total }
    }

    /// The anchor before the page at `offset`, and where that page starts after it.
    pub fn before(&self, offset: i64) -> Option<(&Anchor, i64)> {
        let k = usize::try_from(offset / ANCHOR_EVERY).unwrap_or(0);
        let anchor = k.checked_sub(1).and_then(|i| self.keys.get(i))?;
        Some((anchor, offset - (k as i64) * ANCHOR_EVERY))
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// A cached payout's fees, as the gateway's list gave them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayoutFee {
    pub handling_fee: Option<String>,
    pub fixed_fee: Option<String>,
    pub mer_order_no: String,
}

/// Orders and volume of one UTC day in one currency.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DayFigures {
    /// UTC day start, millis.
    pub day: i64,
    pub currency: String,
    pub orders: i64,
    pub volume: String,
}

/// Orders of one currency, kind, state, settlement and reserve status, counted and
/// summed ([`OrderStore::statement_groups`]).
#[derive(Debug, Clone, PartialEq)]
pub struct StatementGroup {
    pub currency: String,
    /// `None`: the journal does not know it.
    pub kind: Option<OrderKind>,
    pub state: i64,
    pub settle: Option<i64>,
    pub reserve_status: Option<i64>,
    pub count: i64,
    pub sums: GroupSums,
}

/// Orders of one state, kind, method, currency, reason and message, counted, their
/// `sourceAmount` summed ([`OrderStore::failure_groups`]): what a failure breakdown
/// (issue 36) is made of.
#[derive(Debug, Clone, PartialEq)]
pub struct FailureGroup {
    pub state: i64,
    /// `None`: the journal does not know it.
    pub kind: Option<OrderKind>,
    pub method: String,
    pub currency: String,
    /// `refusalPayReason` ("" when none was given).
    pub reason: String,
    pub message: String,
    pub count: i64,
    pub amount: Decimal,
}

/// The sums of a group's amounts (a field the gateway left out counts as zero).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GroupSums {
    /// `sourceAmount`.
    pub amount: Decimal,
    pub handling_fee: Decimal,
    pub fixed_fee: Decimal,
    pub exception_fee: Decimal,
    pub rolling_reserve: Decimal,
    pub refund_amount: Decimal,
    pub settle_amount: Decimal,
    pub receive_amount: Decimal,
    /// The charged-back amount: the one the desk looked up (the chargeback query), else
    /// the order's amount.
    pub chargeback: Decimal,
    /// Orders whose chargeback amount was looked up.
    pub chargebacks_looked_up: i64,
    /// Orders with a refunded amount above zero.
    pub refunded: i64,
    /// On a team's read model: orders no request of the team made
    /// ([`CachedOrder::outside_team`]); 0 on a single desk's own cache.
    pub outside_team: i64,
}

/// The fields of a cached order that move the merchant's balance: when the gateway's
/// list shows one of them changed, the order is seen moving the balance again, at the
/// time of the read that saw it (`moved_at`, what a balance reconciliation windows
/// on). Named as the order's fields and the caches' columns are; both store backends
/// take this from here (the SQLite writer renders it, the PostgreSQL trigger is checked
/// against it).
pub const BALANCE_FIELDS: [&str; 10] = [
    "state",
    "currency",
    "source_amount",
    "handling_fee",
    "transaction_fixed_fee",
    "exception_handling_fee",
    "rolling_reserve",
    "rolling_reserve_status",
    "settle",
    "refund_amount",
];
