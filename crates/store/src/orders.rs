//! The order cache: the table's trait, which each backend implements.

/// The table's types are the model's (`paydesk-model`: no I/O); kept at this path.
pub use paydesk_model::orders::*;

use paydesk_gateway::wire::OrderListItem;

use crate::error::CoreResult;

/// One list item to cache: `created_at` is the start of the window it came from (an
/// order already cached keeps its first date, unless `window_end` says otherwise),
/// `verified` whether its page's signature verified.
#[derive(Debug, Clone, Copy)]
pub struct Upsert<'a> {
    pub item: &'a OrderListItem,
    pub created_at: i64,
    pub verified: bool,
    /// The end of the window of the list that listed it (from `created_at`), when it
    /// came from a window: an order cached on a day outside that window is moved to
    /// its start (it was cached from a window that listed it wrongly, or one it has
    /// left). None for an order read by its number, which keeps its date.
    pub window_end: Option<i64>,
}

/// The order cache: orders as the gateway last listed them, their history and search.
pub trait OrderStore {
    /// The anchors of the filtered, sorted set: one pass over the index (about 0.1 s per
    /// million rows).
    fn anchors(&self, filter: &OrderFilter) -> CoreResult<Anchors>;

    /// A page of `limit` rows from `offset`, read after the nearest anchor so that pages
    /// deep in a million rows cost what pages near the top do. `anchors` must come from
    /// [`anchors`] for the same filter over the same data.
    fn query_anchored(
        &self,
        filter: &OrderFilter,
        anchors: &Anchors,
        offset: i64,
        limit: i64,
    ) -> CoreResult<OrderPage>;

    /// How many rows match.
    fn count(&self, filter: &OrderFilter) -> CoreResult<i64>;

    /// Streams every matching row, in the filter's order, to `f` (for export).
    fn for_each(
        &self,
        filter: &OrderFilter,
        f: &mut dyn FnMut(&CachedOrder) -> CoreResult<()>,
    ) -> CoreResult<()>;

    fn get(&self, trade_no: &str) -> CoreResult<Option<CachedOrder>>;

    fn by_mer_order_no(&self, mer_order_no: &str) -> CoreResult<Option<CachedOrder>>;

    /// The state changes recorded of an order, oldest first: (state, when, how).
    fn state_changes(&self, trade_no: &str) -> CoreResult<Vec<(i64, i64, String)>>;

    /// The states an order went through, as this desk saw them: (state, when, how). The
    /// first is the state it was first cached in; an order never seen changing has its
    /// one state, since it was made here or first seen (the same on every backend).
    fn history(&self, trade_no: &str) -> CoreResult<Vec<(i64, i64, String)>> {
        let changes = self.state_changes(trade_no)?;
        if !changes.is_empty() {
            return Ok(changes);
        }
        Ok(self
            .get(trade_no)?
            .map(|o| {
                let how = if o.made_at.is_some() {
                    "made here"
                } else {
                    "first seen"
                };
                vec![(o.state, o.created_at, how.to_string())]
            })
            .unwrap_or_default())
    }

    /// Caches an order this desk made (or adds what the journal knows to the cached
    /// row: kind, method where the list gave none, the time it was made). A row a list
    /// already showed keeps the list's state and figures; a row under the same trade
    /// number with another merchant order number is not ours and is left alone (returns
    /// false); without a state the order is only added to a row already cached.
    fn record_made(&self, mer_no: u64, order: &MadeOrder) -> CoreResult<bool>;

    /// Gives orders of no known kind whose merchant order number starts with `prefix`
    /// (exactly, case included) the kind `kind`; how many it labelled. Orders a journal
    /// labelled keep their kind.
    fn label_kind(&self, prefix: &str, kind: OrderKind) -> CoreResult<u64>;

    /// Trade numbers of orders in one of the `open` states (those the profile's dictionary
    /// does not call final) dated within `[from, to)`, to re-read on an incremental sync.
    fn open_orders(&self, open: &[i64], from: i64, to: i64) -> CoreResult<Vec<String>>;

    fn distinct_currencies(&self) -> CoreResult<Vec<String>>;

    /// The fee of the last cached payout (`CLABE` or `CARD`) in `currency` that shows one.
    fn last_payout_fee(&self, currency: &str) -> CoreResult<Option<PayoutFee>>;

    /// When the cache dates an order (the start of the window it was found in).
    fn created_at(&self, trade_no: &str) -> CoreResult<Option<i64>>;

    /// Orders and volume per UTC day and currency since `since` (UTC millis).
    fn day_figures(&self, since: i64) -> CoreResult<Vec<DayFigures>>;

    /// How many orders the cache holds.
    fn count_all(&self) -> CoreResult<i64>;

    /// The sums a statement is made of: the orders matching `filter` grouped by
    /// currency, kind, state, settlement and reserve status (a few hundred groups at most,
    /// however many orders), counted and summed in the database.
    fn statement_groups(&self, filter: &OrderFilter) -> CoreResult<Vec<StatementGroup>>;

    /// Whether this backend keeps reports' sums per day
    /// ([`OrderStore::statement_groups_by_day`]): a report then reads a period a day at a
    /// time; otherwise it reads the period at once (one query), as it always did.
    fn keeps_report_days(&self) -> bool {
        false
    }

    /// [`OrderStore::statement_groups`] of the orders dated in each of `days` (each
    /// `[from, to)`), every currency: one list per day, in `days`' order. A backend may
    /// keep them (the SQLite cache keeps each day of at most 26 hours until an order in
    /// it changes); this default sums each day from its orders.
    fn statement_groups_by_day(&self, days: &[(i64, i64)]) -> CoreResult<Vec<Vec<StatementGroup>>> {
        days.iter()
            .map(|&(from, to)| self.statement_groups(&OrderFilter::dated(from, to)))
            .collect()
    }

    /// The [`FailureGroup`]s of the orders dated in each of `days` (each `[from, to)`):
    /// one list per day, in `days`' order. A backend may keep them, as
    /// [`OrderStore::statement_groups_by_day`]; this default reads each day's orders.
    fn failure_groups_by_day(&self, days: &[(i64, i64)]) -> CoreResult<Vec<Vec<FailureGroup>>> {
        days.iter()
            .map(|&(from, to)| failure_groups(self, from, to))
            .collect()
    }
    /// A page of `limit` rows from `offset` (at most 1,000).
    fn query(&self, filter: &OrderFilter, offset: i64, limit: i64) -> CoreResult<OrderPage>;

    /// Upserts a page of list items atomically; returns how many orders are new or changed
    /// state.
    fn upsert_items(
        &self,
        mer_no: u64,
        items: &[OrderListItem],
        created_at: i64,
        verified: bool,
    ) -> CoreResult<usize>;

    /// Upserts any number of items atomically (the sync batches several pages: SQLite
    /// rewrites far fewer index pages per order that way), as read at `now` (UTC millis,
    /// the engine's clock): their `synced_at`, and the `moved_at` of an order whose
    /// balance fields ([`paydesk_model::orders::BALANCE_FIELDS`]) changed, on every
    /// backend. Inside a caller's transaction it commits with it.
    fn upsert_at(&self, mer_no: u64, rows: &[Upsert<'_>], now: i64) -> CoreResult<usize>;

    /// [`OrderStore::upsert_at`] now, by the system's clock.
    fn upsert(&self, mer_no: u64, rows: &[Upsert<'_>]) -> CoreResult<usize> {
        self.upsert_at(mer_no, rows, crate::now_ms())
    }
}

/// The [`FailureGroup`]s of the orders `orders` dates in `[from, to)`, read from its
/// rows ([`OrderStore::for_each`]) and summed exactly.
pub fn failure_groups<S: OrderStore + ?Sized>(
    orders: &S,
    from: i64,
    to: i64,
) -> CoreResult<Vec<FailureGroup>> {
    type Key = (i64, Option<OrderKind>, String, String, String, String);
    let mut index: std::collections::HashMap<Key, usize> = Default::default();
    let mut out: Vec<FailureGroup> = Vec::new();
    orders.for_each(&OrderFilter::dated(from, to), &mut |o| {
        let amount = o
            .source_amount
            .trim()
            .parse::<rust_decimal::Decimal>()
            .map_err(|e| crate::error::CoreError::storage(format!("orders.source_amount: {e}")))?;
        let key = (
            o.state,
            o.kind,
            o.method.clone(),
            o.currency.clone(),
            o.refusal_pay_reason.clone(),
            o.message.clone(),
        );
        let at = match index.get(&key) {
            Some(&at) => at,
            None => {
                out.push(FailureGroup {
                    state: o.state,
                    kind: o.kind,
                    method: key.2.clone(),
                    currency: key.3.clone(),
                    reason: key.4.clone(),
                    message: key.5.clone(),
                    count: 0,
                    amount: rust_decimal::Decimal::ZERO,
                });
                index.insert(key, out.len() - 1);
                out.len() - 1
            }
        };
        let g = &mut out[at];
        g.count += 1;
        g.amount = g
            .amount
            .checked_add(amount)
            .ok_or_else(|| crate::error::CoreError::internal("a failure sum beyond 7.9 x 10^28"))?;
        Ok(())
    })?;
    Ok(out)
}
