//! `orders`, its search index `orders_fts` and its state history `order_history`: the
//! order cache. Batched upserts from the order list, and the filtered, sorted, searched
//! pages the screens and the CLI read. Search by order or trade number fragment goes
//! through an FTS5 trigram index, not a table scan.

/// The table's trait and types are the store's (`paydesk-store`); kept at this path.
pub use paydesk_store::orders::*;

use std::ops::Deref;

use paydesk_gateway::wire::OrderListItem;
use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};
use rust_decimal::Decimal;

use paydesk_model::filter::{Predicate, Search, Values};

use crate::Db;
use paydesk_store::dialect::{MOVED, SortSql, list_column};
use paydesk_store::error::CoreResult;

mod report_days;
mod statement;
mod write;

const COLUMNS: &str = "trade_no, mer_order_no, state, method, currency, source_amount, handling_fee, receive_amount, \
    settle_amount, rolling_reserve, transaction_fixed_fee, refund_amount, refund_currency, settlement_currency, \
    rolling_reserve_status, settle, refusal_pay_reason, message, created_at, synced_at, signature_verified, kind, made_at, \
    exception_handling_fee";

fn row_to_order(r: &rusqlite::Row<'_>) -> rusqlite::Result<CachedOrder> {
    Ok(CachedOrder {
        trade_no: r.get(0)?,
        mer_order_no: r.get(1)?,
        state: r.get(2)?,
        method: r.get(3)?,
        currency: r.get(4)?,
        source_amount: r.get(5)?,
        handling_fee: r.get(6)?,
        receive_amount: r.get(7)?,
        settle_amount: r.get(8)?,
        rolling_reserve: r.get(9)?,
        transaction_fixed_fee: r.get(10)?,
        refund_amount: r.get(11)?,
        refund_currency: r.get(12)?,
        settlement_currency: r.get(13)?,
        rolling_reserve_status: r.get(14)?,
        settle: r.get(15)?,
        refusal_pay_reason: r.get(16)?,
        message: r.get(17)?,
        created_at: r.get(18)?,
        // 0: made here, not yet in a list.
        synced_at: Some(r.get::<_, i64>(19)?).filter(|t| *t > 0),
        signature_verified: r.get(20)?,
        kind: OrderKind::parse(&r.get::<_, String>(21)?),
        made_at: r.get(22)?,
        exception_handling_fee: r.get(23)?,
        outside_team: false,
    })
}

/// The order cache of one database (a connection or a transaction).
#[derive(Debug, Clone, Copy)]
pub struct Orders<C> {
    conn: C,
}

impl<C: Deref<Target = Connection>> Orders<C> {
    pub fn on(conn: C) -> Self {
        Orders { conn }
    }

    fn upsert_in(&self, mer_no: u64, rows: &[Upsert<'_>], now: i64) -> CoreResult<usize> {
        write::upsert(&self.conn, mer_no, rows, now)
    }
}

impl<C: Deref<Target = Connection>> OrderStore for Orders<C> {
    fn upsert_items(
        &self,
        mer_no: u64,
        items: &[OrderListItem],
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
        self.upsert(mer_no, &rows)
    }

    fn upsert_at(&self, mer_no: u64, rows: &[Upsert<'_>], now: i64) -> CoreResult<usize> {
        super::atomic(&self.conn, || self.upsert_in(mer_no, rows, now))
    }

    fn query(&self, filter: &OrderFilter, offset: i64, limit: i64) -> CoreResult<OrderPage> {
        let (clause, args) = filter.clause()?;
        let limit = limit.clamp(1, 1000);
        let sql = format!(
            "SELECT {COLUMNS} FROM orders {clause} {} LIMIT {limit} OFFSET {}",
            filter.order_by(),
            offset.max(0)
        );
        let mut stmt = self.conn.prepare_cached(&sql).db()?;
        let rows = stmt
            .query_map(params_from_iter(args.iter()), row_to_order)
            .db()?
            .collect::<Result<Vec<_>, _>>()
            .db()?;
        let total = self.count(filter)?;
        Ok(OrderPage {
            rows,
            total,
            offset,
        })
    }

    fn anchors(&self, filter: &OrderFilter) -> CoreResult<Anchors> {
        let (clause, args) = filter.clause()?;
        let sql = format!(
            "SELECT {}, id FROM orders {clause} {}",
            filter.sort_column(),
            filter.order_by()
        );
        let mut stmt = self.conn.prepare(&sql).db()?;
        let mut rows = stmt.query(params_from_iter(args.iter())).db()?;
        let mut keys = Vec::new();
        let mut n: i64 = 0;
        while let Some(r) = rows.next().db()? {
            n += 1;
            if n % ANCHOR_EVERY == 0 {
                let id: i64 = r.get(1).db()?;
                keys.push(match filter.sort {
                    SortKey::TradeNo => Anchor::text(r.get(0).db()?, id),
                    _ => Anchor::number(r.get(0).db()?, id),
                });
            }
        }
        Ok(Anchors::new(keys, n))
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
        let (clause, mut args) = filter.clause()?;
        let op = if filter.descending { "<" } else { ">" };
        let after = format!("({}, id) {op} (?, ?)", filter.sort_column());
        let clause = if clause.is_empty() {
            format!("WHERE {after}")
        } else {
            format!("{clause} AND {after}")
        };
        let (number, text, id) = anchor.key();
        args.push(match (number, text) {
            (Some(v), _) => Sql::Integer(v),
            (None, Some(t)) => Sql::Text(t.to_string()),
            (None, None) => Sql::Null,
        });
        args.push(Sql::Integer(id));
        let limit = limit.clamp(1, 1000);
        let sql = format!(
            "SELECT {COLUMNS} FROM orders {clause} {} LIMIT {limit} OFFSET {rest}",
            filter.order_by()
        );
        let mut stmt = self.conn.prepare_cached(&sql).db()?;
        let rows = stmt
            .query_map(params_from_iter(args.iter()), row_to_order)
            .db()?
            .collect::<Result<Vec<_>, _>>()
            .db()?;
        Ok(OrderPage {
            rows,
            total: anchors.total,
            offset,
        })
    }

    fn count(&self, filter: &OrderFilter) -> CoreResult<i64> {
        let (clause, args) = filter.clause()?;
        let sql = format!("SELECT COUNT(*) FROM orders {clause}");
        self.conn
            .prepare_cached(&sql)
            .db()?
            .query_row(params_from_iter(args.iter()), |r| r.get(0))
            .db()
    }

    fn for_each(
        &self,
        filter: &OrderFilter,
        f: &mut dyn FnMut(&CachedOrder) -> CoreResult<()>,
    ) -> CoreResult<()> {
        let (clause, args) = filter.clause()?;
        let sql = format!(
            "SELECT {COLUMNS} FROM orders {clause} {}",
            filter.order_by()
        );
        let mut stmt = self.conn.prepare(&sql).db()?;
        let mut rows = stmt.query(params_from_iter(args.iter())).db()?;
        while let Some(r) = rows.next().db()? {
            f(&row_to_order(r).db()?)?;
        }
        Ok(())
    }

    fn get(&self, trade_no: &str) -> CoreResult<Option<CachedOrder>> {
        let sql = format!("SELECT {COLUMNS} FROM orders WHERE trade_no = ?1");
        self.conn
            .prepare_cached(&sql)
            .db()?
            .query_row([trade_no], row_to_order)
            .optional()
            .db()
    }

    fn by_mer_order_no(&self, mer_order_no: &str) -> CoreResult<Option<CachedOrder>> {
        let sql = format!("SELECT {COLUMNS} FROM orders WHERE mer_order_no = ?1");
        self.conn
            .prepare_cached(&sql)
            .db()?
            .query_row([mer_order_no], row_to_order)
            .optional()
            .db()
    }

    fn state_changes(&self, trade_no: &str) -> CoreResult<Vec<(i64, i64, String)>> {
        let mut stmt = self.conn.prepare_cached("SELECT state, seen_at, source FROM order_history WHERE trade_no = ?1 ORDER BY seen_at, rowid").db()?;
        let changes = stmt
            .query_map([trade_no], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .db()?
            .collect::<Result<Vec<(i64, i64, String)>, _>>()
            .db()?;
        Ok(changes)
    }

    fn record_made(&self, mer_no: u64, o: &MadeOrder) -> CoreResult<bool> {
        // Dates and labels the row of this very order (same trade, order and merchant
        // numbers), never another; the method fills only a blank one.
        let label = || -> CoreResult<bool> {
            let updated = self
                .conn
                .execute(
                    "UPDATE orders SET kind = ?2, made_at = ?3, created_at = ?3,
                    method = CASE WHEN method = '' THEN ?4 ELSE method END
                 WHERE trade_no = ?1 AND mer_order_no = ?5 AND mer_no = ?6",
                    params![
                        o.trade_no,
                        o.kind.as_str(),
                        o.made_at,
                        o.method,
                        o.mer_order_no,
                        mer_no as i64
                    ],
                )
                .db()?;
            Ok(updated == 1)
        };
        super::atomic(&self.conn, || {
            let Some(state) = o.state else {
                return label();
            };
            let inserted = self.conn.execute(
                "INSERT INTO orders (trade_no, mer_no, mer_order_no, state, method, currency, source_amount, amount_e4,
                    created_at, synced_at, signature_verified, kind, made_at, moved_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 0, 0, ?10, ?9, ?9)
                 ON CONFLICT (trade_no) DO NOTHING",
                params![
                    o.trade_no,
                    mer_no as i64,
                    o.mer_order_no,
                    state,
                    o.method,
                    o.currency,
                    o.amount.to_string(),
                    amount_e4(o.amount),
                    o.made_at,
                    o.kind.as_str(),
                ],
            ).db()?;
            if inserted == 1 {
                self.conn.execute(
                    "INSERT INTO orders_fts (rowid, trade_no, mer_order_no) VALUES (?1, ?2, ?3)",
                    params![self.conn.last_insert_rowid(), o.trade_no, o.mer_order_no],
                ).db()?;
                return Ok(true);
            }
            label()
        })
    }

    fn label_kind(&self, prefix: &str, kind: OrderKind) -> CoreResult<u64> {
        let n = self
            .conn
            .execute(
                "UPDATE orders SET kind = ?1
              WHERE kind = '' AND substr(mer_order_no, 1, length(?2)) = ?2",
                params![kind.as_str(), prefix],
            )
            .db()?;
        Ok(n as u64)
    }

    fn open_orders(&self, open: &[i64], from: i64, to: i64) -> CoreResult<Vec<String>> {
        let open = serde_json::to_string(open).unwrap_or_else(|_| "[]".into());
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT trade_no FROM orders WHERE state IN (SELECT value FROM json_each(?1))
           AND created_at >= ?2 AND created_at < ?3 ORDER BY created_at",
            )
            .db()?;
        let rows = stmt.query_map(params![open, from, to], |r| r.get(0)).db()?;
        rows.collect::<Result<Vec<_>, _>>().db()
    }

    fn distinct_currencies(&self) -> CoreResult<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare("SELECT DISTINCT currency FROM orders ORDER BY currency")
            .db()?;
        let rows = stmt.query_map([], |r| r.get(0)).db()?;
        rows.collect::<Result<Vec<_>, _>>().db()
    }

    fn last_payout_fee(&self, currency: &str) -> CoreResult<Option<PayoutFee>> {
        self.conn
            .query_row(
                "SELECT handling_fee, transaction_fixed_fee, mer_order_no FROM orders
             WHERE currency = ?1 AND method IN ('CLABE', 'CARD') AND kind IN ('payout', '')
               AND (handling_fee IS NOT NULL OR transaction_fixed_fee IS NOT NULL)
             ORDER BY id DESC LIMIT 1",
                [currency],
                |r| {
                    Ok(PayoutFee {
                        handling_fee: r.get(0)?,
                        fixed_fee: r.get(1)?,
                        mer_order_no: r.get(2)?,
                    })
                },
            )
            .optional()
            .db()
    }

    fn created_at(&self, trade_no: &str) -> CoreResult<Option<i64>> {
        self.conn
            .query_row(
                "SELECT created_at FROM orders WHERE trade_no = ?1",
                [trade_no],
                |r| r.get(0),
            )
            .optional()
            .db()
    }

    fn day_figures(&self, since: i64) -> CoreResult<Vec<DayFigures>> {
        // Summed here as decimals, exactly: an i64 SUM of 10^-4 units overflows (an
        // error in SQLite) once amounts near the 10^15 the desk accepts are cached.
        let mut stmt = self
            .conn
            .prepare(
                "SELECT (created_at / 86400000) * 86400000, currency, source_amount FROM orders
             WHERE created_at >= ?1",
            )
            .db()?;
        let mut days: std::collections::BTreeMap<(i64, String), (i64, Decimal)> =
            Default::default();
        let mut rows = stmt.query([since]).db()?;
        while let Some(r) = rows.next().db()? {
            let text: String = r.get(2).db()?;
            let amount = text.trim().parse::<Decimal>().map_err(|e| {
                paydesk_store::error::CoreError::storage(format!(
                    "orders.source_amount {text:?}: {e}"
                ))
            })?;
            let e = days.entry((r.get(0).db()?, r.get(1).db()?)).or_default();
            e.0 += 1;
            e.1 = e.1.checked_add(amount).ok_or_else(|| {
                paydesk_store::error::CoreError::internal("a day's volume beyond 7.9 x 10^28")
            })?;
        }
        Ok(days
            .into_iter()
            .map(|((day, currency), (orders, volume))| DayFigures {
                day,
                currency,
                orders,
                volume: volume.normalize().to_string(),
            })
            .collect())
    }

    fn count_all(&self) -> CoreResult<i64> {
        self.conn
            .query_row("SELECT COUNT(*) FROM orders", [], |r| r.get(0))
            .db()
    }

    fn statement_groups(&self, filter: &OrderFilter) -> CoreResult<Vec<StatementGroup>> {
        let (clause, args) = filter.clause()?;
        statement::groups(&self.conn, &clause, &args)
    }

    fn keeps_report_days(&self) -> bool {
        true
    }

    fn statement_groups_by_day(&self, days: &[(i64, i64)]) -> CoreResult<Vec<Vec<StatementGroup>>> {
        report_days::groups(&self.conn, report_days::STATEMENT, days, |from, to| {
            let (clause, args) = OrderFilter::dated(from, to).clause()?;
            statement::groups(&self.conn, &clause, &args)
        })
    }

    fn failure_groups_by_day(&self, days: &[(i64, i64)]) -> CoreResult<Vec<Vec<FailureGroup>>> {
        report_days::groups(&self.conn, report_days::FAILURES, days, |from, to| {
            let (clause, args) = OrderFilter::dated(from, to).clause()?;
            statement::failure_groups(&self.conn, &clause, &args)
        })
    }
}

/// A journal request's customer as one text to search: the payer's e-mail, user id
/// and name (PIX's `name`, SEPA's billing names, a card payout's beneficiary).
const CUSTOMER_TEXT: &str = "(COALESCE(json_extract(request, '$.email'), '') || ' ' \
    || COALESCE(json_extract(request, '$.userId'), '') || ' ' \
    || COALESCE(json_extract(request, '$.name'), '') || ' ' \
    || COALESCE(json_extract(request, '$.billingFirstName'), '') || ' ' \
    || COALESCE(json_extract(request, '$.billingLastName'), '') || ' ' \
    || COALESCE(json_extract(request, '$.benFirstName'), '') || ' ' \
    || COALESCE(json_extract(request, '$.benLastName'), ''))";

/// `text` matched literally by LIKE with `ESCAPE '\'`.
fn like_escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

/// The filter as SQLite's WHERE clause.
pub(crate) trait FilterSql {
    fn clause(&self) -> CoreResult<(String, Vec<Sql>)>;
}

impl FilterSql for OrderFilter {
    /// The WHERE clause and its parameters: the filter's predicates in SQLite's words.
    fn clause(&self) -> CoreResult<(String, Vec<Sql>)> {
        let mut parts: Vec<String> = Vec::new();
        let mut args: Vec<Sql> = Vec::new();
        for p in self.predicates()? {
            match p {
                Predicate::CreatedFrom(t) => {
                    parts.push("created_at >= ?".into());
                    args.push(Sql::Integer(t));
                }
                Predicate::CreatedBefore(t) => {
                    parts.push("created_at < ?".into());
                    args.push(Sql::Integer(t));
                }
                Predicate::MovedFrom(t) => {
                    parts.push(format!("{MOVED} >= ?"));
                    args.push(Sql::Integer(t));
                }
                Predicate::MovedBefore(t) => {
                    parts.push(format!("{MOVED} < ?"));
                    args.push(Sql::Integer(t));
                }
                Predicate::OneOf(column, values) => {
                    let n = match &values {
                        Values::Numbers(v) => {
                            args.extend(v.iter().map(|x| Sql::Integer(*x)));
                            v.len()
                        }
                        Values::Texts(v) => {
                            args.extend(v.iter().map(|x| Sql::Text(x.clone())));
                            v.len()
                        }
                    };
                    parts.push(format!(
                        "{} IN ({})",
                        list_column(column),
                        vec!["?"; n].join(",")
                    ));
                }
                Predicate::Refunded(refunded) => {
                    // Decimal text above zero: a digit other than 0 and no sign (exact, as text).
                    let above = "(refund_amount GLOB '*[1-9]*' AND refund_amount NOT LIKE '-%')";
                    parts.push(if refunded {
                        above.to_string()
                    } else {
                        format!("NOT COALESCE({above}, 0)")
                    });
                }
                Predicate::AmountAtLeast(e4) => {
                    parts.push("amount_e4 >= ?".into());
                    args.push(Sql::Integer(e4));
                }
                Predicate::AmountAtMost(e4) => {
                    parts.push("amount_e4 <= ?".into());
                    args.push(Sql::Integer(e4));
                }
                Predicate::Search(Search::Substring(frag)) => {
                    // The trigram index answers substrings of 3 characters or more. An order
                    // this desk made is found by its customer too: the journal keeps the
                    // request it sent (card numbers masked), so the customer's e-mail, name
                    // and user id are read there and nothing of them is copied into the cache.
                    let quoted = format!("\"{}\"", frag.replace('"', "\"\""));
                    parts.push(format!(
                        "(id IN (SELECT rowid FROM orders_fts WHERE orders_fts MATCH ?) \
                         OR trade_no IN (SELECT trade_no FROM journal WHERE trade_no IS NOT NULL \
                         AND {CUSTOMER_TEXT} LIKE ? ESCAPE '\\'))"
                    ));
                    args.push(Sql::Text(quoted));
                    args.push(Sql::Text(format!("%{}%", like_escape(&frag))));
                }
                Predicate::Search(Search::Prefix(frag)) => {
                    // One or two characters: a prefix match, which the indexes serve.
                    parts.push(
                        "(trade_no LIKE ? ESCAPE '\\' OR mer_order_no LIKE ? ESCAPE '\\')".into(),
                    );
                    let like = format!("{}%", like_escape(&frag));
                    args.push(Sql::Text(like.clone()));
                    args.push(Sql::Text(like));
                }
            }
        }
        let clause = if parts.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", parts.join(" AND "))
        };
        Ok((clause, args))
    }
}
