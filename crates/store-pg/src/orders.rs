//! The team's order cache on PostgreSQL (`paydesk.orders`, `paydesk.order_history`): the
//! same [`OrderStore`] as the desk's SQLite cache, shared by the team. Fragment search
//! on order and trade numbers goes through pg_trgm's GIN indexes (`ILIKE '%…%'`), as the
//! SQLite cache's goes through its FTS5 trigram index; the sync's batches are written by
//! one statement each ([`write`]).

use std::fmt::Write as _;

use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::PgLink;
use super::run::{Run, atomically, col};
use paydesk_model::filter::{Predicate, Search, Values};
use paydesk_model::orders::{
    ANCHOR_EVERY, Anchor, Anchors, CachedOrder, DayFigures, GroupSums, MadeOrder, OrderFilter,
    OrderKind, OrderPage, PayoutFee, SortKey, StatementGroup,
};
use paydesk_store::dialect::{MOVED, SortSql, list_column};
use paydesk_store::error::{CoreError, CoreResult};
use paydesk_store::orders::{OrderStore, Upsert};

mod write;

/// The columns of a [`CachedOrder`], in the order [`order`] reads them.
const COLUMNS: &str = "trade_no, mer_order_no, state, method, currency, source_amount::text, handling_fee::text, \
    receive_amount::text, settle_amount::text, rolling_reserve::text, transaction_fixed_fee::text, refund_amount::text, \
    refund_currency, settlement_currency, rolling_reserve_status, settle, refusal_pay_reason, message, created_at, \
    synced_at, signature_verified, kind, made_at, exception_handling_fee::text";

fn order(r: &Row) -> CoreResult<CachedOrder> {
    let synced_at: i64 = col(r, 19)?;
    let kind: String = col(r, 21)?;
    Ok(CachedOrder {
        trade_no: col(r, 0)?,
        mer_order_no: col(r, 1)?,
        state: col(r, 2)?,
        method: col(r, 3)?,
        currency: col(r, 4)?,
        source_amount: col(r, 5)?,
        handling_fee: col(r, 6)?,
        receive_amount: col(r, 7)?,
        settle_amount: col(r, 8)?,
        rolling_reserve: col(r, 9)?,
        transaction_fixed_fee: col(r, 10)?,
        refund_amount: col(r, 11)?,
        refund_currency: col(r, 12)?,
        settlement_currency: col(r, 13)?,
        rolling_reserve_status: col(r, 14)?,
        settle: col(r, 15)?,
        refusal_pay_reason: col(r, 16)?,
        message: col(r, 17)?,
        created_at: col(r, 18)?,
        // 0: made by the team, not yet in a list.
        synced_at: Some(synced_at).filter(|t| *t > 0),
        signature_verified: col(r, 20)?,
        kind: OrderKind::parse(&kind),
        made_at: col(r, 22)?,
        exception_handling_fee: col(r, 23)?,
        // The team's journal made it if a signer recorded it as made (`record_made`,
        // from an accepted entry): its time is then known.
        outside_team: col::<Option<i64>>(r, 22)?.is_none(),
    })
}

type Arg = Box<dyn ToSql + Sync + Send>;

/// A WHERE clause and its parameters (`$1` is always the merchant).
struct Where {
    parts: Vec<String>,
    args: Vec<Arg>,
}

impl Where {
    fn new(mer_no: i64) -> Self {
        Where {
            parts: vec!["mer_no = $1".into()],
            args: vec![Box::new(mer_no)],
        }
    }

    /// Adds a parameter; returns its placeholder.
    fn arg(&mut self, v: Arg) -> String {
        self.args.push(v);
        format!("${}", self.args.len())
    }

    /// `col = $n` for one value (so a sorted index still gives the order), `col =
    /// ANY($n)` for several.
    fn one_of<T: ToSql + Sync + Send + Clone + 'static>(&mut self, col: &str, values: &[T]) {
        match values {
            [] => {}
            [one] => {
                let p = self.arg(Box::new(one.clone()));
                self.parts.push(format!("{col} = {p}"));
            }
            many => {
                let p = self.arg(Box::new(many.to_vec()));
                self.parts.push(format!("{col} = ANY({p})"));
            }
        }
    }

    fn sql(&self) -> String {
        format!("WHERE {}", self.parts.join(" AND "))
    }

    fn params(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.args
            .iter()
            .map(|a| a.as_ref() as &(dyn ToSql + Sync))
            .collect()
    }
}

/// `text` for ILIKE, its wildcards and the escape character taken literally.
fn like_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    for c in text.chars() {
        if matches!(c, '\\' | '%' | '_') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A team journal request's customer as one text to search (as SQLite's
/// `CUSTOMER_TEXT`): the payer's e-mail, user id and name (PIX's `name`, SEPA's billing
/// names, a card payout's beneficiary).
const PG_CUSTOMER_TEXT: &str = "concat_ws(' ', j.request::jsonb ->> 'email', \
    j.request::jsonb ->> 'userId', j.request::jsonb ->> 'name', \
    j.request::jsonb ->> 'billingFirstName', j.request::jsonb ->> 'billingLastName', \
    j.request::jsonb ->> 'benFirstName', j.request::jsonb ->> 'benLastName')";

/// The filter as PostgreSQL's WHERE clause, with SQLite's meaning: the same bounds,
/// lists and amount rules (errors naming the field), and the number search
/// case-insensitive like FTS5's trigram index (a substring from 3 characters, a prefix
/// below).
fn clause(f: &OrderFilter, mer_no: i64) -> CoreResult<Where> {
    let mut w = Where::new(mer_no);
    for p in f.predicates()? {
        match p {
            Predicate::CreatedFrom(t) => {
                let p = w.arg(Box::new(t));
                w.parts.push(format!("created_at >= {p}"));
            }
            Predicate::CreatedBefore(t) => {
                let p = w.arg(Box::new(t));
                w.parts.push(format!("created_at < {p}"));
            }
            Predicate::MovedFrom(t) => {
                let p = w.arg(Box::new(t));
                w.parts.push(format!("{MOVED} >= {p}"));
            }
            Predicate::MovedBefore(t) => {
                let p = w.arg(Box::new(t));
                w.parts.push(format!("{MOVED} < {p}"));
            }
            Predicate::OneOf(column, Values::Numbers(v)) => w.one_of(list_column(column), &v),
            Predicate::OneOf(column, Values::Texts(v)) => w.one_of(list_column(column), &v),
            Predicate::Refunded(true) => w.parts.push("refund_amount > 0".into()),
            Predicate::Refunded(false) => w
                .parts
                .push("NOT COALESCE(refund_amount > 0, false)".into()),
            Predicate::AmountAtLeast(e4) => {
                let p = w.arg(Box::new(e4));
                w.parts.push(format!("amount_e4 >= {p}"));
            }
            Predicate::AmountAtMost(e4) => {
                let p = w.arg(Box::new(e4));
                w.parts.push(format!("amount_e4 <= {p}"));
            }
            Predicate::Search(Search::Substring(frag)) => {
                let p = w.arg(Box::new(format!("%{}%", like_escape(&frag))));
                // An order the team's journal made is found by its customer too, as on a
                // single desk: the e-mail, name and user id of the request it sent (read from
                // the journal as the member may read it, never copied into the read model:
                // a card payout's holder only by who may read the holder). The journal's
                // numbers are read once into an array (an init plan), so each of the three
                // stays an index condition the planner ORs together (the trigram indexes and
                // the cache's key); an `IN (subquery)` made the search a scan of every order.
                w.parts.push(format!(
                    "(trade_no ILIKE {p} OR mer_order_no ILIKE {p} OR trade_no = ANY (ARRAY \
                     (SELECT j.trade_no FROM paydesk.journal_shown j WHERE j.mer_no = $1 \
                     AND j.trade_no IS NOT NULL AND {PG_CUSTOMER_TEXT} ILIKE {p})))"
                ));
            }
            Predicate::Search(Search::Prefix(frag)) => {
                let p = w.arg(Box::new(format!("{}%", like_escape(&frag))));
                w.parts
                    .push(format!("(trade_no ILIKE {p} OR mer_order_no ILIKE {p})"));
            }
        }
    }
    Ok(w)
}

/// The order cache of the team of merchant `mer_no`, on a link or in a transaction.
#[derive(Clone, Copy)]
pub struct PgOrders<'a> {
    run: &'a dyn Run,
    mer_no: i64,
}

impl std::fmt::Debug for PgOrders<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgOrders")
            .field("mer_no", &self.mer_no)
            .finish_non_exhaustive()
    }
}

impl<'a> PgOrders<'a> {
    /// The order cache on `link`, each call on its own (a write in a transaction of its own).
    pub fn on(link: &'a PgLink, mer_no: i64) -> Self {
        PgOrders { run: link, mer_no }
    }

    pub(crate) fn in_run(run: &'a dyn Run, mer_no: i64) -> Self {
        PgOrders { run, mer_no }
    }

    /// `touch`: an order the list shows as cached is written all the same (its
    /// `synced_at`), else only a new or changed one.
    fn upsert_rows(
        &self,
        mer_no: u64,
        rows: &[Upsert<'_>],
        touch: bool,
        now: i64,
    ) -> CoreResult<usize> {
        self.check_merchant(mer_no)?;
        if rows.is_empty() {
            return Ok(0);
        }
        let mer_no = self.mer_no;
        atomically(self.run, |run| write::upsert(run, mer_no, rows, touch, now))
    }

    /// The merchant a write names must be the team's: rows of another would never be read.
    fn check_merchant(&self, mer_no: u64) -> CoreResult<()> {
        if i64::try_from(mer_no).ok() != Some(self.mer_no) {
            return Err(CoreError::keyed(
                "merNo",
                format!("this is the team of merchant {}, not {mer_no}", self.mer_no),
                "teamOtherMerchant",
                &[
                    ("existing", self.mer_no.to_string()),
                    ("merNo", mer_no.to_string()),
                ],
            ));
        }
        Ok(())
    }

    fn page(&self, sql: &str, w: &Where) -> CoreResult<Vec<CachedOrder>> {
        self.run.rows(sql, &w.params())?.iter().map(order).collect()
    }
}

impl OrderStore for PgOrders<'_> {
    fn anchors(&self, filter: &OrderFilter) -> CoreResult<Anchors> {
        let w = clause(filter, self.mer_no)?;
        let dir = if filter.descending { "DESC" } else { "ASC" };
        let sort = filter.sort_column();
        // Numbered on the server: only every ANCHOR_EVERY-th row (and the last, for the
        // total) comes back, not the whole sorted set.
        let sql = format!(
            "SELECT v, id, rn FROM (
                 SELECT {sort} AS v, id, row_number() OVER w AS rn, lead(id) OVER w IS NULL AS last
                 FROM paydesk.orders {} WINDOW w AS (ORDER BY {sort} {dir}, id {dir})
             ) s WHERE rn % {ANCHOR_EVERY} = 0 OR last ORDER BY rn",
            w.sql()
        );
        let mut keys = Vec::new();
        let mut total = 0;
        for r in self.run.rows(&sql, &w.params())? {
            let rn: i64 = col(&r, 2)?;
            total = rn;
            if rn % ANCHOR_EVERY == 0 {
                let id: i64 = col(&r, 1)?;
                keys.push(match filter.sort {
                    SortKey::TradeNo => Anchor::text(col(&r, 0)?, id),
                    SortKey::Created | SortKey::Amount | SortKey::State => {
                        Anchor::number(col(&r, 0)?, id)
                    }
                });
            }
        }
        Ok(Anchors::new(keys, total))
    }

    fn query_anchored(
        &self,
        filter: &OrderFilter,
        anchors: &Anchors,
        offset: i64,
        limit: i64,
    ) -> CoreResult<OrderPage> {
        let offset = offset.max(0);
        let Some((anchor, rest)) = anchors.before(offset) else {
            return self.query(filter, offset, limit);
        };
        let mut w = clause(filter, self.mer_no)?;
        let (number, text, id) = anchor.key();
        let value = match (number, text) {
            (Some(n), _) => w.arg(Box::new(n)),
            (None, Some(t)) => w.arg(Box::new(t.to_string())),
            (None, None) => return Err(CoreError::internal("an anchor without a sort key")),
        };
        let after_id = w.arg(Box::new(id));
        let op = if filter.descending { "<" } else { ">" };
        w.parts.push(format!(
            "({}, id) {op} ({value}, {after_id})",
            filter.sort_column()
        ));
        let limit = limit.clamp(1, 1000);
        let sql = format!(
            "SELECT {COLUMNS} FROM paydesk.orders {} {} LIMIT {limit} OFFSET {rest}",
            w.sql(),
            filter.order_by()
        );
        Ok(OrderPage {
            rows: self.page(&sql, &w)?,
            total: anchors.total,
            offset,
        })
    }

    fn count(&self, filter: &OrderFilter) -> CoreResult<i64> {
        let w = clause(filter, self.mer_no)?;
        let sql = format!("SELECT count(*) FROM paydesk.orders {}", w.sql());
        col(&self.run.one(&sql, &w.params())?, 0)
    }

    fn for_each(
        &self,
        filter: &OrderFilter,
        f: &mut dyn FnMut(&CachedOrder) -> CoreResult<()>,
    ) -> CoreResult<()> {
        let w = clause(filter, self.mer_no)?;
        let sql = format!(
            "SELECT {COLUMNS} FROM paydesk.orders {} {}",
            w.sql(),
            filter.order_by()
        );
        self.run.each(&sql, &w.params(), &mut |r| f(&order(r)?))
    }

    fn get(&self, trade_no: &str) -> CoreResult<Option<CachedOrder>> {
        let sql =
            format!("SELECT {COLUMNS} FROM paydesk.orders WHERE mer_no = $1 AND trade_no = $2");
        self.run
            .row(&sql, &[&self.mer_no, &trade_no])?
            .as_ref()
            .map(order)
            .transpose()
    }

    fn by_mer_order_no(&self, mer_order_no: &str) -> CoreResult<Option<CachedOrder>> {
        // Served by the trigram index (pg_trgm answers equality too).
        let sql = format!(
            "SELECT {COLUMNS} FROM paydesk.orders WHERE mer_no = $1 AND mer_order_no = $2 ORDER BY id LIMIT 1"
        );
        self.run
            .row(&sql, &[&self.mer_no, &mer_order_no])?
            .as_ref()
            .map(order)
            .transpose()
    }

    fn state_changes(&self, trade_no: &str) -> CoreResult<Vec<(i64, i64, String)>> {
        let rows = self.run.rows(
            "SELECT state, seen_at, source FROM paydesk.order_history
              WHERE mer_no = $1 AND trade_no = $2 ORDER BY seen_at, id",
            &[&self.mer_no, &trade_no],
        )?;
        let changes = rows
            .iter()
            .map(|r| Ok((col(r, 0)?, col(r, 1)?, col(r, 2)?)))
            .collect::<CoreResult<Vec<(i64, i64, String)>>>()?;
        Ok(changes)
    }

    fn record_made(&self, mer_no: u64, o: &MadeOrder) -> CoreResult<bool> {
        self.check_merchant(mer_no)?;
        let mer_no = self.mer_no;
        atomically(self.run, |run| write::record_made(run, mer_no, o))
    }

    /// Labels nothing on a team: an order's kind comes from the team's journal only
    /// (`record_made`). An order no journal of the team made (made outside this team)
    /// keeps no kind, whatever its number looks like, so a statement puts it on the line
    /// of orders of unknown kind and never counts it as a payin.
    fn label_kind(&self, _prefix: &str, _kind: OrderKind) -> CoreResult<u64> {
        Ok(0)
    }

    fn open_orders(&self, open: &[i64], from: i64, to: i64) -> CoreResult<Vec<String>> {
        let rows = self.run.rows(
            "SELECT trade_no FROM paydesk.orders WHERE mer_no = $1 AND state = ANY($2)
               AND created_at >= $3 AND created_at < $4 ORDER BY created_at, id",
            &[&self.mer_no, &open, &from, &to],
        )?;
        rows.iter().map(|r| col(r, 0)).collect()
    }

    fn distinct_currencies(&self) -> CoreResult<Vec<String>> {
        let rows = self.run.rows(
            "SELECT DISTINCT currency FROM paydesk.orders WHERE mer_no = $1 ORDER BY currency",
            &[&self.mer_no],
        )?;
        rows.iter().map(|r| col(r, 0)).collect()
    }

    fn last_payout_fee(&self, currency: &str) -> CoreResult<Option<PayoutFee>> {
        let row = self.run.row(
            "SELECT handling_fee::text, transaction_fixed_fee::text, mer_order_no FROM paydesk.orders
              WHERE mer_no = $1 AND currency = $2 AND method IN ('CLABE', 'CARD') AND kind IN ('payout', '')
                AND (handling_fee IS NOT NULL OR transaction_fixed_fee IS NOT NULL)
              ORDER BY id DESC LIMIT 1",
            &[&self.mer_no, &currency],
        )?;
        row.map(|r| {
            Ok(PayoutFee {
                handling_fee: col(&r, 0)?,
                fixed_fee: col(&r, 1)?,
                mer_order_no: col(&r, 2)?,
            })
        })
        .transpose()
    }

    fn created_at(&self, trade_no: &str) -> CoreResult<Option<i64>> {
        self.run
            .row(
                "SELECT created_at FROM paydesk.orders WHERE mer_no = $1 AND trade_no = $2",
                &[&self.mer_no, &trade_no],
            )?
            .map(|r| col(&r, 0))
            .transpose()
    }

    fn day_figures(&self, since: i64) -> CoreResult<Vec<DayFigures>> {
        let rows = self.run.rows(
            "SELECT (created_at / 86400000) * 86400000 AS day, currency, count(*), sum(source_amount)::text
               FROM paydesk.orders WHERE mer_no = $1 AND created_at >= $2
              GROUP BY day, currency ORDER BY day, currency",
            &[&self.mer_no, &since],
        )?;
        rows.iter()
            .map(|r| {
                // numeric sums are exact (an i64 of 10^-4 units would overflow).
                let text: String = col(r, 3)?;
                let volume = text
                    .parse::<rust_decimal::Decimal>()
                    .map_err(|e| CoreError::internal(format!("a volume {text:?}: {e}")))?;
                Ok(DayFigures {
                    day: col(r, 0)?,
                    currency: col(r, 1)?,
                    orders: col(r, 2)?,
                    volume: volume.normalize().to_string(),
                })
            })
            .collect()
    }

    fn count_all(&self) -> CoreResult<i64> {
        col(
            &self.run.one(
                "SELECT count(*) FROM paydesk.orders WHERE mer_no = $1",
                &[&self.mer_no],
            )?,
            0,
        )
    }

    fn statement_groups(&self, filter: &OrderFilter) -> CoreResult<Vec<StatementGroup>> {
        let w = clause(filter, self.mer_no)?;
        // numeric sums are exact; coalesced to 0 and read back as text.
        let sum = |col: &str| format!("coalesce(sum({col}), 0)::text");
        // The charged-back amount the desk looked up, else the order's amount.
        let chargeback = "(SELECT coalesce(cb.chargeback_amount, cb.actual_chargeback_amount) \
             FROM paydesk.chargebacks cb WHERE cb.mer_no = o.mer_no AND cb.trade_no = o.trade_no)";
        let sql = format!(
            "SELECT currency, kind, state, settle, rolling_reserve_status, count(*), {}, {}, {}, {}, {}, {}, {}, {},
                    coalesce(sum(coalesce(cb, source_amount)), 0)::text, count(cb),
                    count(*) FILTER (WHERE refund_amount > 0),
                    count(*) FILTER (WHERE made_at IS NULL)
               FROM (SELECT o.*, {chargeback} AS cb FROM paydesk.orders o) orders {}
              GROUP BY currency, kind, state, settle, rolling_reserve_status",
            sum("source_amount"),
            sum("handling_fee"),
            sum("transaction_fixed_fee"),
            sum("exception_handling_fee"),
            sum("rolling_reserve"),
            sum("refund_amount"),
            sum("settle_amount"),
            sum("receive_amount"),
            w.sql()
        );
        self.run
            .rows(&sql, &w.params())?
            .iter()
            .map(|r| {
                let d = |i: usize| -> CoreResult<rust_decimal::Decimal> {
                    let text: String = col(r, i)?;
                    text.parse::<rust_decimal::Decimal>()
                        .map(|d| d.normalize())
                        .map_err(|e| CoreError::internal(format!("a sum {text:?}: {e}")))
                };
                let kind: String = col(r, 1)?;
                Ok(StatementGroup {
                    currency: col(r, 0)?,
                    kind: OrderKind::parse(&kind),
                    state: col(r, 2)?,
                    settle: col(r, 3)?,
                    reserve_status: col(r, 4)?,
                    count: col(r, 5)?,
                    sums: GroupSums {
                        amount: d(6)?,
                        handling_fee: d(7)?,
                        fixed_fee: d(8)?,
                        exception_fee: d(9)?,
                        rolling_reserve: d(10)?,
                        refund_amount: d(11)?,
                        settle_amount: d(12)?,
                        receive_amount: d(13)?,
                        chargeback: d(14)?,
                        chargebacks_looked_up: col(r, 15)?,
                        refunded: col(r, 16)?,
                        // As `order` reads it: no signer recorded it as made.
                        outside_team: col(r, 17)?,
                    },
                })
            })
            .collect()
    }

    fn query(&self, filter: &OrderFilter, offset: i64, limit: i64) -> CoreResult<OrderPage> {
        let w = clause(filter, self.mer_no)?;
        let limit = limit.clamp(1, 1000);
        let mut sql = format!(
            "SELECT {COLUMNS} FROM paydesk.orders {} {}",
            w.sql(),
            filter.order_by()
        );
        write!(sql, " LIMIT {limit} OFFSET {}", offset.max(0)).ok();
        let rows = self.page(&sql, &w)?;
        let total = self.count(filter)?;
        Ok(OrderPage {
            rows,
            total,
            offset,
        })
    }

    fn upsert_items(
        &self,
        mer_no: u64,
        items: &[paydesk_gateway::wire::OrderListItem],
        created_at: i64,
        verified: bool,
    ) -> CoreResult<usize> {
        let rows: Vec<Upsert<'_>> = items
            .iter()
            .map(|item| Upsert {
                item,
                created_at,
                verified,
                window_end: None,
            })
            .collect();
        // Orders read by their numbers (a look-up, the order page's re-read): each one
        // shown by the list is written with the list's time, changed or not, so "synced"
        // is when it was last read and the order page's re-read waits its minute.
        self.upsert_rows(mer_no, &rows, true, paydesk_store::now_ms())
    }

    /// The sync's batches: an order the list shows as cached is not written again (see
    /// `write::UPSERT`).
    fn upsert_at(&self, mer_no: u64, rows: &[Upsert<'_>], now: i64) -> CoreResult<usize> {
        self.upsert_rows(mer_no, rows, false, now)
    }
}

/// For the benchmark only: makes `paydesk_bench_copy` (with `triggers`) or
/// `paydesk_bench_copy_plain` anew, a table like
/// `paydesk.orders` in everything but its rows (`LIKE ... INCLUDING ALL`: columns,
/// defaults, constraints, every index; the same fillfactor), with the same triggers when
/// `triggers`: the anchor the sync's writer is measured against.
#[doc(hidden)]
pub fn bench_anchor_table(link: &PgLink, triggers: bool) -> CoreResult<()> {
    write::anchor_table(link, triggers)
}

/// For the benchmark only: `items` copied by one `COPY ... FROM STDIN` into the table
/// [`bench_anchor_table`] made (the columns the sync's upsert writes). Returns how many rows
/// were copied.
#[doc(hidden)]
pub fn bench_anchor_copy(
    link: &PgLink,
    triggers: bool,
    mer_no: i64,
    items: &[paydesk_gateway::wire::OrderListItem],
    created_at: i64,
) -> CoreResult<u64> {
    write::anchor_copy(link, triggers, mer_no, items, created_at)
}

/// For the benchmark only: drops the tables [`bench_anchor_table`] made (so that their
/// autovacuum does not run beside what is measured next).
#[doc(hidden)]
pub fn bench_anchor_drop(link: &PgLink) -> CoreResult<()> {
    link.batch("DROP TABLE IF EXISTS paydesk_bench_copy, paydesk_bench_copy_plain")
}

/// For the benchmark only: brings the planner's statistics and the visibility map up to
/// date after a bulk load (what autovacuum does on a live server).
#[doc(hidden)]
pub fn bench_vacuum(link: &PgLink) -> CoreResult<()> {
    link.batch("VACUUM ANALYZE paydesk.orders")
}
