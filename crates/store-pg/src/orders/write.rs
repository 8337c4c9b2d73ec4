//! The sync's write path on PostgreSQL: a batch of list items upserted into
//! `paydesk.orders` and its state history in ONE statement, the batch sent as arrays (one
//! per column) and unrolled by `unnest`. One round trip per batch whatever its size, the
//! parameters bound in binary, and nothing to create or drop per batch (`COPY` into a
//! temporary table would need a second statement and catalog churn on every batch, and
//! the team's members may not create temporary tables). `examples/pg_bench.rs` measures
//! it beside a `COPY` of the same rows into a table with the same indexes, constraints
//! and triggers: three quarters of its rate on a first sync. A re-sync, which mostly
//! lists orders as cached, writes only the orders the list shows otherwise, so it goes
//! faster per order than a first sync.
//!
//! What SQLite gets from its single writer, the team's writers get from an advisory
//! lock on the merchant's cache held for the transaction: the states read before the
//! upsert are the states it replaces, so each change of state is counted and recorded
//! once.

use std::collections::HashMap;

use rust_decimal::Decimal;
use sha2::{Digest, Sha256};
use tokio_postgres::types::ToSql;

use crate::PgLink;
use crate::run::{Run, col};
use paydesk_store::error::CoreResult;
use paydesk_store::now_ms;
use paydesk_store::orders::{MadeOrder, Upsert, amount_e4};

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

/// `$1` the merchant, `$2` the sync's time, `$3` to `$24` the columns, `$25` whether a cached
/// order the list shows as cached is written all the same. Returns how many
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
    INSERT INTO paydesk.orders AS cur (mer_no, trade_no, mer_order_no, state, currency, source_amount, amount_e4,
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
    -- Only a row the list shows otherwise (or a look-up's, `$25`, or one made here and
    -- listed for the first time): a re-sync mostly lists orders as cached, and a row
    -- rewritten as it was is a new row version, an entry in every index (the trigram
    -- ones too) unless it stays on its page, and work for vacuum. Amounts compared as
    -- text, so a change of scale ('10.0' to '10.00') is written too.
    WHERE $25 OR cur.synced_at = 0
       OR (cur.state, cur.currency, cur.amount_e4, cur.source_amount::text, cur.handling_fee::text,
           cur.receive_amount::text, cur.settle_amount::text, cur.rolling_reserve::text,
           cur.transaction_fixed_fee::text, cur.exception_handling_fee::text, cur.refund_amount::text,
           cur.settlement_currency, cur.refund_currency, cur.rolling_reserve_status, cur.settle,
           cur.refusal_pay_reason, cur.message, cur.signature_verified)
          IS DISTINCT FROM
          (excluded.state, excluded.currency, excluded.amount_e4, excluded.source_amount::text,
           excluded.handling_fee::text, excluded.receive_amount::text, excluded.settle_amount::text,
           excluded.rolling_reserve::text, excluded.transaction_fixed_fee::text,
           excluded.exception_handling_fee::text, excluded.refund_amount::text,
           excluded.settlement_currency, excluded.refund_currency, excluded.rolling_reserve_status,
           excluded.settle, excluded.refusal_pay_reason, excluded.message, excluded.signature_verified)
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

fn upsert_round(
    run: &dyn Run,
    mer_no: i64,
    round: &[&Upsert<'_>],
    now: i64,
    touch: bool,
) -> CoreResult<usize> {
    let mut c = Columns::default();
    for u in round {
        c.push(u);
    }
    let [f0, f1, f2, f3, f4, f5, f6] = &c.fees;
    let params: [&(dyn ToSql + Sync); 25] = [
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
        &touch,
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
pub(super) fn upsert(
    run: &dyn Run,
    mer_no: i64,
    rows: &[Upsert<'_>],
    touch: bool,
    now: i64,
) -> CoreResult<usize> {
    lock(run, mer_no)?;
    // The planner cannot estimate the CTEs' rows (it guesses millions), so it would JIT
    // compile the statement: about half a second a batch, for a statement that runs in
    // less. Off for this transaction only.
    run.exec("SET LOCAL jit = off", &[])?;
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
        changed += upsert_round(run, mer_no, &round, now, touch)?;
    }
    Ok(changed)
}

/// [`paydesk_store::orders::OrderStore::record_made`] (`run` is a transaction). Through
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

/// See [`super::bench_anchor_table`].
pub(super) fn anchor_table(link: &PgLink, triggers: bool) -> CoreResult<()> {
    // The same columns, defaults, constraints and indexes (the trigram GIN ones too), the
    // same storage options (fillfactor); with `triggers`, the same triggers.
    let t = anchor_name(triggers);
    link.batch(&format!(
        "DROP TABLE IF EXISTS {t};
         CREATE TABLE {t} (LIKE paydesk.orders INCLUDING ALL);
         DO $$
         DECLARE o text[];
         BEGIN
             SELECT reloptions INTO o FROM pg_class WHERE oid = 'paydesk.orders'::regclass;
             IF o IS NOT NULL THEN
                 EXECUTE format('ALTER TABLE {t} SET (%s)', array_to_string(o, ', '));
             END IF;
         END $$;"
    ))?;
    if triggers {
        link.batch(&format!(
            "DO $$
             DECLARE d text;
             BEGIN
                 FOR d IN SELECT pg_get_triggerdef(t.oid) FROM pg_trigger t
                           WHERE t.tgrelid = 'paydesk.orders'::regclass AND NOT t.tgisinternal LOOP
                     EXECUTE replace(d, ' ON paydesk.orders ', ' ON {t} ');
                 END LOOP;
             END $$;"
        ))?;
    }
    Ok(())
}

fn anchor_name(triggers: bool) -> &'static str {
    if triggers {
        "paydesk_bench_copy"
    } else {
        "paydesk_bench_copy_plain"
    }
}

/// See [`super::bench_anchor_copy`].
pub(super) fn anchor_copy(
    link: &PgLink,
    triggers: bool,
    mer_no: i64,
    items: &[paydesk_gateway::wire::OrderListItem],
    created_at: i64,
) -> CoreResult<u64> {
    use std::fmt::Write as _;
    // Text COPY: the numeric columns are parsed by the server from their text, as the
    // upsert's `::numeric` casts do (a binary numeric needs a Rust numeric type this
    // crate does not link).
    fn field(out: &mut String, v: &str) {
        for ch in v.chars() {
            match ch {
                '\\' => out.push_str("\\\\"),
                '\t' => out.push_str("\\t"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                c => out.push(c),
            }
        }
        out.push('\t');
    }
    let now = now_ms();
    let mut data = String::with_capacity(items.len() * 160);
    for it in items {
        let _ = write!(data, "{mer_no}\t");
        field(&mut data, &it.trade_no);
        field(&mut data, &it.mer_order_no);
        let _ = write!(data, "{}\t", it.state);
        field(&mut data, &it.source_currency);
        let _ = write!(
            data,
            "{}\t{}\t",
            it.source_amount,
            amount_e4(it.source_amount)
        );
        for d in [
            it.handling_fee,
            it.receive_amount,
            it.settle_amount,
            it.rolling_reserve,
            it.transaction_fixed_fee,
            it.exception_handling_fee,
            it.refund_amount,
        ] {
            match d {
                Some(d) => {
                    let _ = write!(data, "{d}\t");
                }
                None => data.push_str("\\N\t"),
            }
        }
        field(&mut data, &it.settlement_currency);
        field(&mut data, &it.refund_currency);
        for v in [it.rolling_reserve_status, it.settle] {
            match v {
                Some(v) => {
                    let _ = write!(data, "{v}\t");
                }
                None => data.push_str("\\N\t"),
            }
        }
        field(&mut data, &it.refusal_pay_reason);
        field(&mut data, &it.message);
        let _ = writeln!(data, "{created_at}\t{now}\tt");
    }
    link.copy_in_text(
        &format!(
            "COPY {} (mer_no, trade_no, mer_order_no, state, currency, source_amount, amount_e4,
             handling_fee, receive_amount, settle_amount, rolling_reserve, transaction_fixed_fee,
             exception_handling_fee, refund_amount, settlement_currency, refund_currency,
             rolling_reserve_status, settle, refusal_pay_reason, message, created_at, synced_at,
             signature_verified) FROM STDIN",
            anchor_name(triggers)
        ),
        data.into_bytes(),
    )
}
