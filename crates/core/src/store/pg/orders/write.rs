//! The sync's write path on PostgreSQL: a batch of list items upserted into
//! `paydesk.orders` and its state history in ONE statement, the batch sent as arrays (one
//! per column) and unrolled by `unnest`. One round trip per batch whatever its size, the
//! parameters bound in binary, and nothing to create or drop per batch (`COPY` into a
//! temporary table would need a second statement and catalog churn on every batch, for
//! little more speed at the sync's batch sizes: see `examples/pg_bench.rs`).
//!
//! What SQLite gets from its single writer, the team's writers get from an advisory
//! lock on the merchant's cache held for the transaction: the states read before the
//! upsert are the states it replaces, so each change of state is counted and recorded
//! once.

use std::collections::HashMap;

use rust_decimal::Decimal;
use sha2::{Digest, Sha256};
use tokio_postgres::types::{ToSql, Type};

use crate::error::CoreResult;
use crate::store::now_ms;
use crate::store::orders::{MadeOrder, Upsert, amount_e4};
use crate::store::pg::PgLink;
use crate::store::pg::run::{Run, col};

/// The advisory lock of the merchant's order cache: the first 8 bytes of a SHA-256, the
/// same on every desk.
fn lock_key(mer_no: i64) -> i64 {
    let digest = Sha256::digest(format!("paydesk.orders\x1f{mer_no}").as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    i64::from_be_bytes(bytes)
}

/// Through the team's function, a row lock on the owner's `paydesk.desk_locks` no member
/// holds any right on (0022): a member taking the advisory lock of this (computable)
/// key holds up nothing; a signer's session left idle holding it is ended after 5 s.
fn lock(run: &dyn Run, mer_no: i64) -> CoreResult<()> {
    run.exec(
        "SELECT paydesk.advisory_xact_lock($1)",
        &[&lock_key(mer_no)],
    )?;
    Ok(())
}

/// One round of the batch: its orders' columns, one array each.
#[derive(Default)]
struct Columns {
    trade_no: Vec<String>,
    mer_order_no: Vec<String>,
    state: Vec<i64>,
    currency: Vec<String>,
    source_amount: Vec<String>,
    amount_e4: Vec<i64>,
    fees: [Vec<Option<String>>; 7],
    settlement_currency: Vec<String>,
    refund_currency: Vec<String>,
    rolling_reserve_status: Vec<Option<i64>>,
    settle: Vec<Option<i64>>,
    refusal_pay_reason: Vec<String>,
    message: Vec<String>,
    created_at: Vec<i64>,
    verified: Vec<bool>,
    window_end: Vec<Option<i64>>,
}

impl Columns {
    fn push(&mut self, u: &Upsert<'_>) {
        let it = u.item;
        let text = |d: Option<Decimal>| d.map(|d| d.to_string());
        self.trade_no.push(it.trade_no.clone());
        self.mer_order_no.push(it.mer_order_no.clone());
        self.state.push(it.state);
        self.currency.push(it.source_currency.clone());
        self.source_amount.push(it.source_amount.to_string());
        self.amount_e4.push(amount_e4(it.source_amount));
        for (v, d) in self.fees.iter_mut().zip([
            it.handling_fee,
            it.receive_amount,
            it.settle_amount,
            it.rolling_reserve,
            it.transaction_fixed_fee,
            it.exception_handling_fee,
            it.refund_amount,
        ]) {
            v.push(text(d));
        }
        self.settlement_currency
            .push(it.settlement_currency.clone());
        self.refund_currency.push(it.refund_currency.clone());
        self.rolling_reserve_status.push(it.rolling_reserve_status);
        self.settle.push(it.settle);
        self.refusal_pay_reason.push(it.refusal_pay_reason.clone());
        self.message.push(it.message.clone());
        self.created_at.push(u.created_at);
        self.verified.push(u.verified);
        self.window_end.push(u.window_end);
    }
}

/// `$1` the merchant, `$2` the sync's time, `$3` to `$24` the columns. Returns how many
/// orders are new or changed state, and the cached orders a window of another day than
/// theirs listed (to move to that window's day).
const UPSERT: &str = "
WITH input AS (
    SELECT * FROM unnest($3::text[], $4::text[], $5::int8[], $6::text[], $7::text[], $8::int8[],
        $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[],
        $16::text[], $17::text[], $18::int8[], $19::int8[], $20::text[], $21::text[], $22::int8[], $23::bool[], $24::int8[])
    AS t (trade_no, mer_order_no, state, currency, source_amount, amount_e4,
        handling_fee, receive_amount, settle_amount, rolling_reserve, transaction_fixed_fee,
        exception_handling_fee, refund_amount, settlement_currency, refund_currency,
        rolling_reserve_status, settle, refusal_pay_reason, message, created_at, verified, window_end)
),
old AS (
    SELECT o.trade_no, o.state, o.created_at, o.made_at IS NOT NULL AS made_here
    FROM paydesk.orders o JOIN input i ON o.mer_no = $1 AND o.trade_no = i.trade_no
),
written AS (
    INSERT INTO paydesk.orders (mer_no, trade_no, mer_order_no, state, currency, source_amount, amount_e4,
        handling_fee, receive_amount, settle_amount, rolling_reserve, transaction_fixed_fee,
        exception_handling_fee, refund_amount, settlement_currency, refund_currency,
        rolling_reserve_status, settle, refusal_pay_reason, message, created_at, synced_at, signature_verified)
    SELECT $1, trade_no, mer_order_no, state, currency, source_amount::numeric, amount_e4,
        handling_fee::numeric, receive_amount::numeric, settle_amount::numeric, rolling_reserve::numeric,
        transaction_fixed_fee::numeric, exception_handling_fee::numeric, refund_amount::numeric,
        settlement_currency, refund_currency, rolling_reserve_status, settle, refusal_pay_reason, message,
        created_at, $2, verified
    FROM input
    -- A cached order keeps its date, its order number, and what the journal knows of it
    -- (kind, method, when it was made); the list's figures and state replace the rest.
    ON CONFLICT (mer_no, trade_no) DO UPDATE SET
        handling_fee = excluded.handling_fee, receive_amount = excluded.receive_amount,
        settle_amount = excluded.settle_amount, rolling_reserve = excluded.rolling_reserve,
        transaction_fixed_fee = excluded.transaction_fixed_fee,
        exception_handling_fee = excluded.exception_handling_fee, refund_amount = excluded.refund_amount,
        settlement_currency = excluded.settlement_currency, refund_currency = excluded.refund_currency,
        rolling_reserve_status = excluded.rolling_reserve_status, settle = excluded.settle,
        refusal_pay_reason = excluded.refusal_pay_reason, message = excluded.message,
        synced_at = excluded.synced_at, signature_verified = excluded.signature_verified,
        source_amount = excluded.source_amount, state = excluded.state, currency = excluded.currency,
        amount_e4 = excluded.amount_e4
),
changed AS (
    SELECT i.trade_no, o.state AS old_state, i.state AS new_state, o.created_at, o.made_here
    FROM input i JOIN old o ON o.trade_no = i.trade_no
    WHERE o.state <> i.state
),
history AS (
    -- The first change also records the state the order was first seen (or made) in.
    INSERT INTO paydesk.order_history (mer_no, trade_no, state, seen_at, source)
    SELECT $1, trade_no, state, seen_at, source FROM (
        SELECT c.trade_no, c.old_state AS state, c.created_at AS seen_at,
               CASE WHEN c.made_here THEN 'made here' ELSE 'first seen' END AS source, 0 AS k
        FROM changed c
        WHERE NOT EXISTS (SELECT 1 FROM paydesk.order_history h
                           WHERE h.mer_no = $1 AND h.trade_no = c.trade_no)
        UNION ALL
        SELECT c.trade_no, c.new_state, $2, 'sync', 1 FROM changed c
    ) e ORDER BY trade_no, k
)
SELECT ((SELECT count(*) FROM input) - (SELECT count(*) FROM old) + (SELECT count(*) FROM changed))::bigint,
    ARRAY(SELECT i.trade_no FROM input i JOIN old o ON o.trade_no = i.trade_no
           WHERE i.window_end IS NOT NULL AND (o.created_at < i.created_at OR o.created_at > i.window_end))";

fn upsert_round(run: &dyn Run, mer_no: i64, round: &[&Upsert<'_>], now: i64) -> CoreResult<usize> {
    let mut c = Columns::default();
    for u in round {
        c.push(u);
    }
    let [f0, f1, f2, f3, f4, f5, f6] = &c.fees;
    let params: [&(dyn ToSql + Sync); 24] = [
        &mer_no,
        &now,
        &c.trade_no,
        &c.mer_order_no,
        &c.state,
        &c.currency,
        &c.source_amount,
        &c.amount_e4,
        f0,
        f1,
        f2,
        f3,
        f4,
        f5,
        f6,
        &c.settlement_currency,
        &c.refund_currency,
        &c.rolling_reserve_status,
        &c.settle,
        &c.refusal_pay_reason,
        &c.message,
        &c.created_at,
        &c.verified,
        &c.window_end,
    ];
    let row = run.one(UPSERT, &params)?;
    let n: i64 = col(&row, 0)?;
    let misplaced: Vec<String> = col(&row, 1)?;
    if !misplaced.is_empty() {
        // Listed by a window of another day than they were cached on: the window that
        // lists them now places them (a second statement: one may not change a row twice).
        let (nos, days): (Vec<&str>, Vec<i64>) = misplaced
            .iter()
            .filter_map(|no| {
                let u = round.iter().find(|u| u.item.trade_no == *no)?;
                Some((no.as_str(), u.created_at))
            })
            .unzip();
        run.exec(
            "UPDATE paydesk.orders o SET created_at = m.day
               FROM unnest($2::text[], $3::int8[]) AS m (trade_no, day)
              WHERE o.mer_no = $1 AND o.trade_no = m.trade_no",
            &[&mer_no, &nos, &days],
        )?;
    }
    Ok(usize::try_from(n).unwrap_or(0))
}

/// Upserts `rows` under the merchant's lock (`run` is a transaction). Two copies of one
/// order (a page that shifted under the sync) go in two statements, in the list's
/// order, as SQLite applies them: one statement may not change a row twice.
pub(super) fn upsert(run: &dyn Run, mer_no: i64, rows: &[Upsert<'_>]) -> CoreResult<usize> {
    lock(run, mer_no)?;
    // The planner cannot estimate the CTEs' rows (it guesses millions), so it would JIT
    // compile the statement: about half a second a batch, for a statement that runs in
    // less. Off for this transaction only.
    run.exec("SET LOCAL jit = off", &[])?;
    let now = now_ms();
    let mut copies: HashMap<&str, usize> = HashMap::with_capacity(rows.len());
    let mut rounds: Vec<Vec<&Upsert<'_>>> = Vec::new();
    for u in rows {
        let k = copies.entry(u.item.trade_no.as_str()).or_insert(0);
        if rounds.len() <= *k {
            rounds.push(Vec::new());
        }
        rounds[*k].push(u);
        *k += 1;
    }
    let mut changed = 0;
    for mut round in rounds {
        // In trade-number order, the unique index is written in runs instead of scattered.
        round.sort_by(|a, b| a.item.trade_no.cmp(&b.item.trade_no));
        changed += upsert_round(run, mer_no, &round, now)?;
    }
    Ok(changed)
}

/// [`crate::store::orders::OrderStore::record_made`] (`run` is a transaction). Through
/// `paydesk.record_made`: the label (kind, when made) is the request row's that made the
/// order, never the signer's to write (an order no request row made stays "made outside
/// this team").
pub(super) fn record_made(run: &dyn Run, mer_no: i64, o: &MadeOrder) -> CoreResult<bool> {
    lock(run, mer_no)?;
    let row = run.one(
        "SELECT paydesk.record_made($1, $2, $3, $4, $5, $6, $7, $8::text::numeric, $9, $10)",
        &[
            &mer_no,
            &o.trade_no,
            &o.mer_order_no,
            &o.kind.as_str(),
            &o.state,
            &o.method,
            &o.currency,
            &o.amount.to_string(),
            &amount_e4(o.amount),
            &o.made_at,
        ],
    )?;
    col(&row, 0)
}

/// See [`super::bench_raw_copy`].
pub(super) fn raw_copy(
    link: &PgLink,
    mer_no: i64,
    items: &[paydesk_gateway::wire::OrderListItem],
    created_at: i64,
) -> CoreResult<u64> {
    // The amounts as text, as the upsert sends them (the binary COPY of a numeric needs a
    // Rust numeric type this crate does not link).
    link.batch(
        "CREATE TABLE IF NOT EXISTS paydesk_bench_copy (mer_no bigint, trade_no text, mer_order_no text,
             state bigint, currency text, source_amount text, amount_e4 bigint, handling_fee text,
             receive_amount text, settle_amount text, rolling_reserve text, transaction_fixed_fee text,
             exception_handling_fee text, refund_amount text, settlement_currency text, refund_currency text,
             rolling_reserve_status bigint, settle bigint, refusal_pay_reason text, message text,
             created_at bigint, synced_at bigint, signature_verified boolean)",
    )?;
    let now = now_ms();
    let verified = true;
    let mut c = Columns::default();
    for item in items {
        c.push(&Upsert {
            item,
            created_at,
            verified,
            window_end: None,
        });
    }
    let mut types = vec![
        Type::INT8,
        Type::TEXT,
        Type::TEXT,
        Type::INT8,
        Type::TEXT,
        Type::TEXT,
        Type::INT8,
    ];
    types.extend([Type::TEXT; 9]);
    types.extend([
        Type::INT8,
        Type::INT8,
        Type::TEXT,
        Type::TEXT,
        Type::INT8,
        Type::INT8,
        Type::BOOL,
    ]);
    link.copy_in(
        "COPY paydesk_bench_copy FROM STDIN (FORMAT binary)",
        &types,
        (0..items.len()).map(|i| {
            let mut row: Vec<&(dyn ToSql + Sync)> = vec![
                &mer_no,
                &c.trade_no[i],
                &c.mer_order_no[i],
                &c.state[i],
                &c.currency[i],
                &c.source_amount[i],
                &c.amount_e4[i],
            ];
            row.extend(c.fees.iter().map(|f| &f[i] as &(dyn ToSql + Sync)));
            row.extend([
                &c.settlement_currency[i] as &(dyn ToSql + Sync),
                &c.refund_currency[i],
                &c.rolling_reserve_status[i],
                &c.settle[i],
                &c.refusal_pay_reason[i],
                &c.message[i],
                &c.created_at[i],
                &now,
                &c.verified[i],
            ]);
            row
        }),
    )
}
