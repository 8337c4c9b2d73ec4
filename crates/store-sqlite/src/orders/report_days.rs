//! The sums reports are made of, kept per day (`report_days`, migration 0017): a
//! statement's groups and a failure breakdown's groups of the orders dated in a day
//! (`[from, to)`, at most 26 hours), summed from the orders the first time a report reads
//! that day and read from here after that. The migration's triggers delete a kept day in
//! the same transaction as any write that changes one of its orders (or an order's
//! looked-up chargeback), so a kept day is the sum of its orders as they are now.

use rusqlite::{Connection, OptionalExtension, params};
use rust_decimal::Decimal;
use serde_json::{Value, json};

use super::{FailureGroup, GroupSums, OrderKind, StatementGroup};
use crate::Db;
use paydesk_store::error::{CoreError, CoreResult};

/// No kept day is longer (a zone's day is at most 25 hours): the triggers look for the
/// days holding an order's date from this long before it.
pub(super) const LONGEST: i64 = 26 * 3_600_000;

/// More kept days than this (a month is 31, a year 366; other zones' days and
/// periods cut at other hours add more) and they are all forgotten before more are kept.
const MOST: i64 = 20_000;

/// `report_days.what`.
pub(super) const STATEMENT: i64 = 0;
pub(super) const FAILURES: i64 = 1;

/// What a kept day's groups are written as and read back from.
pub(super) trait Kept: Sized {
    fn encode(groups: &[Self]) -> String;
    fn decode(text: &str) -> CoreResult<Vec<Self>>;
}

fn bad(e: impl std::fmt::Display) -> CoreError {
    CoreError::storage(format!("report_days.groups: {e}"))
}

fn dec(v: &Value) -> CoreResult<Decimal> {
    v.as_str()
        .ok_or_else(|| bad("an amount that is no text"))?
        .parse::<Decimal>()
        .map_err(bad)
}

fn int(v: &Value) -> CoreResult<i64> {
    v.as_i64().ok_or_else(|| bad("a count that is no integer"))
}

fn opt_int(v: &Value) -> CoreResult<Option<i64>> {
    if v.is_null() {
        Ok(None)
    } else {
        int(v).map(Some)
    }
}

fn text(v: &Value) -> CoreResult<String> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| bad("a name that is no text"))
}

fn kind(k: Option<OrderKind>) -> &'static str {
    k.map(OrderKind::as_str).unwrap_or("")
}

impl Kept for StatementGroup {
    fn encode(groups: &[Self]) -> String {
        let rows: Vec<Value> = groups
            .iter()
            .map(|g| {
                let s = &g.sums;
                let amounts: Vec<String> = [
                    s.amount,
                    s.handling_fee,
                    s.fixed_fee,
                    s.exception_fee,
                    s.rolling_reserve,
                    s.refund_amount,
                    s.settle_amount,
                    s.receive_amount,
                    s.chargeback,
                ]
                .iter()
                .map(Decimal::to_string)
                .collect();
                json!([
                    g.currency,
                    kind(g.kind),
                    g.state,
                    g.settle,
                    g.reserve_status,
                    g.count,
                    amounts,
                    s.chargebacks_looked_up,
                    s.refunded,
                    s.outside_team
                ])
            })
            .collect();
        Value::Array(rows).to_string()
    }

    fn decode(text_: &str) -> CoreResult<Vec<Self>> {
        let v: Value = serde_json::from_str(text_).map_err(bad)?;
        let rows = v.as_array().ok_or_else(|| bad("no list"))?;
        rows.iter()
            .map(|r| {
                let f = |i: usize| r.get(i).ok_or_else(|| bad("a group too short"));
                let a = f(6)?.as_array().ok_or_else(|| bad("no amounts"))?;
                if a.len() != 9 {
                    return Err(bad("amounts of a group"));
                }
                Ok(StatementGroup {
                    currency: text(f(0)?)?,
                    kind: OrderKind::parse(&text(f(1)?)?),
                    state: int(f(2)?)?,
                    settle: opt_int(f(3)?)?,
                    reserve_status: opt_int(f(4)?)?,
                    count: int(f(5)?)?,
                    sums: GroupSums {
                        amount: dec(&a[0])?,
                        handling_fee: dec(&a[1])?,
                        fixed_fee: dec(&a[2])?,
                        exception_fee: dec(&a[3])?,
                        rolling_reserve: dec(&a[4])?,
                        refund_amount: dec(&a[5])?,
                        settle_amount: dec(&a[6])?,
                        receive_amount: dec(&a[7])?,
                        chargeback: dec(&a[8])?,
                        chargebacks_looked_up: int(f(7)?)?,
                        refunded: int(f(8)?)?,
                        outside_team: int(f(9)?)?,
                    },
                })
            })
            .collect()
    }
}

impl Kept for FailureGroup {
    fn encode(groups: &[Self]) -> String {
        let rows: Vec<Value> = groups
            .iter()
            .map(|g| {
                json!([
                    g.state,
                    kind(g.kind),
                    g.method,
                    g.currency,
                    g.reason,
                    g.message,
                    g.count,
                    g.amount.to_string()
                ])
            })
            .collect();
        Value::Array(rows).to_string()
    }

    fn decode(text_: &str) -> CoreResult<Vec<Self>> {
        let v: Value = serde_json::from_str(text_).map_err(bad)?;
        let rows = v.as_array().ok_or_else(|| bad("no list"))?;
        rows.iter()
            .map(|r| {
                let f = |i: usize| r.get(i).ok_or_else(|| bad("a group too short"));
                Ok(FailureGroup {
                    state: int(f(0)?)?,
                    kind: OrderKind::parse(&text(f(1)?)?),
                    method: text(f(2)?)?,
                    currency: text(f(3)?)?,
                    reason: text(f(4)?)?,
                    message: text(f(5)?)?,
                    count: int(f(6)?)?,
                    amount: dec(f(7)?)?,
                })
            })
            .collect()
    }
}

/// The groups of each of `days` (`what`: [`STATEMENT`] or [`FAILURES`]): a kept day as
/// kept, any other summed by `sum` and kept. Read in one transaction, so every day is of
/// the same moment of the cache; a day is kept only if no other connection wrote the
/// cache meanwhile (else it is answered and not kept). Inside a transaction of the
/// caller's, or for a day longer than [`LONGEST`], nothing is kept.
pub(super) fn groups<T: Kept>(
    conn: &Connection,
    what: i64,
    days: &[(i64, i64)],
    mut sum: impl FnMut(i64, i64) -> CoreResult<Vec<T>>,
) -> CoreResult<Vec<Vec<T>>> {
    if !conn.is_autocommit() {
        return days.iter().map(|&(f, t)| sum(f, t)).collect();
    }
    conn.execute_batch("BEGIN DEFERRED").db()?;
    let r = read_and_keep(conn, what, days, &mut sum);
    match r {
        Ok((out, true)) => match conn.execute_batch("COMMIT") {
            Ok(()) => Ok(out),
            Err(e) => {
                tracing::debug!(error = %e, "report days not kept");
                let _ = conn.execute_batch("ROLLBACK");
                Ok(out)
            }
        },
        Ok((out, false)) => {
            let _ = conn.execute_batch("ROLLBACK");
            Ok(out)
        }
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

/// The days' groups, and whether what was summed was written to be kept.
fn read_and_keep<T: Kept>(
    conn: &Connection,
    what: i64,
    days: &[(i64, i64)],
    sum: &mut impl FnMut(i64, i64) -> CoreResult<Vec<T>>,
) -> CoreResult<(Vec<Vec<T>>, bool)> {
    let mut out = Vec::with_capacity(days.len());
    let mut summed: Vec<(i64, i64, String)> = Vec::new();
    {
        let mut read = conn
            .prepare_cached(
                "SELECT groups FROM report_days WHERE start_ms = ?1 AND end_ms = ?2 AND what = ?3",
            )
            .db()?;
        for &(from, to) in days {
            let kept: Option<String> = if to > from && to - from <= LONGEST {
                read.query_row(params![from, to, what], |r| r.get(0))
                    .optional()
                    .db()?
            } else {
                None
            };
            match kept {
                Some(t) => out.push(T::decode(&t)?),
                None => {
                    let g = sum(from, to)?;
                    if to > from && to - from <= LONGEST {
                        summed.push((from, to, T::encode(&g)));
                    }
                    out.push(g);
                }
            }
        }
    }
    if summed.is_empty() {
        return Ok((out, false));
    }
    // Written in the reading transaction: if another connection wrote the cache since it
    // began, SQLite refuses the write (busy) and nothing is kept.
    let keep = || -> rusqlite::Result<()> {
        conn.execute(
            "DELETE FROM report_days WHERE (SELECT COUNT(*) FROM report_days) > ?1",
            params![MOST],
        )?;
        let mut put = conn.prepare_cached(
            "INSERT OR REPLACE INTO report_days (start_ms, end_ms, what, groups) VALUES (?1, ?2, ?3, ?4)",
        )?;
        for (from, to, g) in &summed {
            put.execute(params![from, to, what, g])?;
        }
        Ok(())
    };
    match keep() {
        Ok(()) => Ok((out, true)),
        Err(e) => {
            tracing::debug!(error = %e, "report days not kept");
            Ok((out, false))
        }
    }
}
