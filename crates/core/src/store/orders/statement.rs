//! The sums a statement is made of, on SQLite: the period's orders grouped by currency,
//! kind, state, settlement and reserve status, with their amounts summed exactly.
//!
//! The rows are read once off the date index and added up here, in a hash of the groups,
//! rather than by `GROUP BY`: SQLite groups by sorting, and sorting a month of 100,000
//! orders on five columns cost more than reading them (about 110 of 200 ms in
//! `statement_bench`). PostgreSQL hashes its groups itself (`pg/orders.rs`).

use std::collections::HashMap;

use rusqlite::types::{Value as Sql, ValueRef};
use rusqlite::{Connection, params_from_iter};
use rust_decimal::Decimal;

use super::{GroupSums, OrderKind, StatementGroup};
use crate::error::{CoreError, CoreResult};

/// The amount columns summed, in [`GroupSums`]' order after `amount_e4`.
const AMOUNTS: [&str; 7] = [
    "handling_fee",
    "transaction_fixed_fee",
    "exception_handling_fee",
    "rolling_reserve",
    "refund_amount",
    "settle_amount",
    "receive_amount",
];

/// One group's running count and sums, in 10^-4 units.
struct Acc {
    group: StatementGroup,
    sums: [i128; 8],
}

/// An integer column that may be NULL.
fn int(v: ValueRef<'_>) -> Option<i64> {
    match v {
        ValueRef::Integer(i) => Some(i),
        _ => None,
    }
}

/// `ROUND(x * 10000)` of a decimal text column: an integer, a whole REAL, or NULL.
fn e4(v: ValueRef<'_>) -> i128 {
    match v {
        ValueRef::Integer(i) => i128::from(i),
        // Whole and below 2^53: exact.
        ValueRef::Real(r) => r as i128,
        _ => 0,
    }
}

pub(super) fn groups(
    conn: &Connection,
    clause: &str,
    args: &[Sql],
) -> CoreResult<Vec<StatementGroup>> {
    // Amounts are decimal text: each is taken as a whole number of 10^-4 units (the
    // cache's precision, as `amount_e4`); a REAL holds every such amount below 10^11
    // near enough for ROUND to give that whole number.
    let amounts: Vec<String> = AMOUNTS
        .iter()
        .map(|c| format!("ROUND({c} * 10000)"))
        .collect();
    let sql = format!(
        "SELECT currency, kind, state, settle, rolling_reserve_status, amount_e4, {} FROM orders {clause}",
        amounts.join(", ")
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut rows = stmt.query(params_from_iter(args.iter()))?;
    let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut accs: Vec<Acc> = Vec::new();
    let mut key: Vec<u8> = Vec::with_capacity(64);
    while let Some(r) = rows.next()? {
        let text = |i: usize| -> CoreResult<&str> {
            r.get_ref(i)?
                .as_str()
                .map_err(|e| CoreError::storage(format!("orders column {i}: {e}")))
        };
        let currency = text(0)?;
        let kind = text(1)?;
        let state: i64 = r.get(2)?;
        let settle = int(r.get_ref(3)?);
        let reserve = int(r.get_ref(4)?);
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
                    sums: [0; 8],
                });
                index.insert(key.clone(), accs.len() - 1);
                accs.len() - 1
            }
        };
        let acc = &mut accs[at];
        acc.group.count += 1;
        for (i, sum) in acc.sums.iter_mut().enumerate() {
            *sum += e4(r.get_ref(5 + i)?);
        }
    }
    accs.into_iter()
        .map(|mut a| {
            let d = |v: i128| -> CoreResult<Decimal> {
                Decimal::try_from_i128_with_scale(v, 4)
                    .map(|d| d.normalize())
                    .map_err(|e| CoreError::internal(format!("a sum out of range: {e}")))
            };
            a.group.sums = GroupSums {
                amount: d(a.sums[0])?,
                handling_fee: d(a.sums[1])?,
                fixed_fee: d(a.sums[2])?,
                exception_fee: d(a.sums[3])?,
                rolling_reserve: d(a.sums[4])?,
                refund_amount: d(a.sums[5])?,
                settle_amount: d(a.sums[6])?,
                receive_amount: d(a.sums[7])?,
            };
            Ok(a.group)
        })
        .collect()
}
