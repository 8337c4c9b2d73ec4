//! The sums a statement is made of, on SQLite: the period's orders grouped by currency,
//! kind, state, settlement and reserve status, with their amounts summed exactly.
//!
//! The rows are read once off the date index and added up here, in a hash of the groups,
//! rather than by `GROUP BY`: SQLite groups by sorting, and sorting a month of 100,000
//! orders on five columns cost more than reading them (about 110 of 200 ms in
//! `statement_bench`). PostgreSQL hashes its groups itself (`pg/orders.rs`).

use crate::Db;
use std::collections::HashMap;

use rusqlite::types::{Value as Sql, ValueRef};
use rusqlite::{Connection, params_from_iter};
use rust_decimal::Decimal;

use super::{GroupSums, OrderKind, StatementGroup};
use paydesk_store::error::{CoreError, CoreResult};

/// The amount columns summed, in [`GroupSums`]' order: decimal text, summed exactly.
const AMOUNTS: [&str; 8] = [
    "source_amount",
    "handling_fee",
    "transaction_fixed_fee",
    "exception_handling_fee",
    "rolling_reserve",
    "refund_amount",
    "settle_amount",
    "receive_amount",
];

/// The charged-back amount the desk looked up for an order (its chargeback query),
/// when it has one.
const CHARGEBACK: &str = "(SELECT COALESCE(cb.chargeback_amount, cb.actual_chargeback_amount) \
     FROM chargebacks cb WHERE cb.trade_no = orders.trade_no)";

/// One group's running count and exact sums.
struct Acc {
    group: StatementGroup,
    sums: [Decimal; 8],
    chargeback: Decimal,
}

/// An integer column that may be NULL.
fn int(v: ValueRef<'_>) -> Option<i64> {
    match v {
        ValueRef::Integer(i) => Some(i),
        _ => None,
    }
}

/// A decimal text column (NULL or empty: none; a whole INTEGER as it is).
fn amount(v: ValueRef<'_>, column: &str) -> CoreResult<Option<Decimal>> {
    let bad = |e: &dyn std::fmt::Display| CoreError::storage(format!("orders.{column}: {e}"));
    match v {
        ValueRef::Null => Ok(None),
        ValueRef::Integer(i) => Ok(Some(Decimal::from(i))),
        // TEXT affinity keeps every amount the desk writes as text: a REAL is not one.
        ValueRef::Real(_) => Err(bad(&"a floating-point value, not decimal text")),
        ValueRef::Text(t) => {
            let t = std::str::from_utf8(t).map_err(|e| bad(&e))?.trim();
            if t.is_empty() {
                return Ok(None);
            }
            t.parse::<Decimal>()
                .or_else(|_| Decimal::from_scientific(t))
                .map(Some)
                .map_err(|e| bad(&e))
        }
        ValueRef::Blob(_) => Err(bad(&"a blob")),
    }
}

fn add(sum: &mut Decimal, v: Decimal) -> CoreResult<()> {
    *sum = sum
        .checked_add(v)
        .ok_or_else(|| CoreError::internal("a statement sum beyond 7.9 x 10^28"))?;
    Ok(())
}

pub(super) fn groups(
    conn: &Connection,
    clause: &str,
    args: &[Sql],
) -> CoreResult<Vec<StatementGroup>> {
    // Amounts are decimal text, each read as the exact decimal it is and summed as a
    // `Decimal` (28 digits): no floating point, no 10^-4 units that saturate.
    let sql = format!(
        "SELECT currency, kind, state, settle, rolling_reserve_status, {}, {CHARGEBACK} FROM orders {clause}",
        AMOUNTS.join(", ")
    );
    let mut stmt = conn.prepare_cached(&sql).db()?;
    let mut rows = stmt.query(params_from_iter(args.iter())).db()?;
    let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut accs: Vec<Acc> = Vec::new();
    let mut key: Vec<u8> = Vec::with_capacity(64);
    while let Some(r) = rows.next().db()? {
        let text = |i: usize| -> CoreResult<&str> {
            r.get_ref(i)
                .db()?
                .as_str()
                .map_err(|e| CoreError::storage(format!("orders column {i}: {e}")))
        };
        let currency = text(0)?;
        let kind = text(1)?;
        let state: i64 = r.get(2).db()?;
        let settle = int(r.get_ref(3).db()?);
        let reserve = int(r.get_ref(4).db()?);
        key.clear();
        key.extend_from_slice(currency.as_bytes());
        key.push(0);
        key.extend_from_slice(kind.as_bytes());
        key.push(0);
        key.extend_from_slice(&state.to_le_bytes());
        for v in [settle, reserve] {
            match v {
                Some(v) => {
                    key.push(1);
                    key.extend_from_slice(&v.to_le_bytes());
                }
                None => key.push(0),
            }
        }
        let at = match index.get(key.as_slice()) {
            Some(&at) => at,
            None => {
                accs.push(Acc {
                    group: StatementGroup {
                        currency: currency.to_string(),
                        kind: OrderKind::parse(kind),
                        state,
                        settle,
                        reserve_status: reserve,
                        count: 0,
                        sums: GroupSums::default(),
                    },
                    sums: [Decimal::ZERO; 8],
                    chargeback: Decimal::ZERO,
                });
                index.insert(key.clone(), accs.len() - 1);
                accs.len() - 1
            }
        };
        let acc = &mut accs[at];
        acc.group.count += 1;
        let mut source = Decimal::ZERO;
        for (i, column) in AMOUNTS.iter().enumerate() {
            let v = amount(r.get_ref(5 + i).db()?, column)?.unwrap_or_default();
            if i == 0 {
                source = v;
            }
            if i == 5 && v > Decimal::ZERO {
                acc.group.sums.refunded += 1;
            }
            add(&mut acc.sums[i], v)?;
        }
        match amount(r.get_ref(5 + AMOUNTS.len()).db()?, "chargeback")? {
            Some(v) => {
                acc.group.sums.chargebacks_looked_up += 1;
                add(&mut acc.chargeback, v)?;
            }
            None => add(&mut acc.chargeback, source)?,
        }
    }
    Ok(accs
        .into_iter()
        .map(|mut a| {
            let s = &mut a.group.sums;
            [
                s.amount,
                s.handling_fee,
                s.fixed_fee,
                s.exception_fee,
                s.rolling_reserve,
                s.refund_amount,
                s.settle_amount,
                s.receive_amount,
            ] = a.sums;
            s.chargeback = a.chargeback;
            a.group
        })
        .collect())
}

/// The failure breakdown's groups of the orders `clause` selects (a day's): read once
/// off the date index, only the columns they need, and added up here exactly (what
/// [`paydesk_store::orders::failure_groups`] makes of whole rows, without reading them).
pub(super) fn failure_groups(
    conn: &Connection,
    clause: &str,
    args: &[Sql],
) -> CoreResult<Vec<super::FailureGroup>> {
    let sql = format!(
        "SELECT state, kind, method, currency, refusal_pay_reason, message, source_amount FROM orders {clause}"
    );
    let mut stmt = conn.prepare_cached(&sql).db()?;
    let mut rows = stmt.query(params_from_iter(args.iter())).db()?;
    let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut out: Vec<super::FailureGroup> = Vec::new();
    let mut key: Vec<u8> = Vec::with_capacity(128);
    while let Some(r) = rows.next().db()? {
        let text = |i: usize| -> CoreResult<&str> {
            r.get_ref(i)
                .db()?
                .as_str()
                .map_err(|e| CoreError::storage(format!("orders column {i}: {e}")))
        };
        let state: i64 = r.get(0).db()?;
        let (kind, method, currency, reason, message) =
            (text(1)?, text(2)?, text(3)?, text(4)?, text(5)?);
        key.clear();
        key.extend_from_slice(&state.to_le_bytes());
        for t in [kind, method, currency, reason, message] {
            key.extend_from_slice(&(t.len() as u64).to_le_bytes());
            key.extend_from_slice(t.as_bytes());
        }
        // As the whole row reads it: the text, trimmed, as a decimal.
        let amount = text(6)?
            .trim()
            .parse::<Decimal>()
            .map_err(|e| CoreError::storage(format!("orders.source_amount: {e}")))?;
        let at = match index.get(key.as_slice()) {
            Some(&at) => at,
            None => {
                out.push(super::FailureGroup {
                    state,
                    kind: OrderKind::parse(kind),
                    method: method.to_string(),
                    currency: currency.to_string(),
                    reason: reason.to_string(),
                    message: message.to_string(),
                    count: 0,
                    amount: Decimal::ZERO,
                });
                index.insert(key.clone(), out.len() - 1);
                out.len() - 1
            }
        };
        let g = &mut out[at];
        g.count += 1;
        g.amount = g
            .amount
            .checked_add(amount)
            .ok_or_else(|| CoreError::internal("a failure sum beyond 7.9 x 10^28"))?;
    }
    Ok(out)
}
