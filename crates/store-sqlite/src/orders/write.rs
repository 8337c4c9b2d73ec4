//! The sync's write path: a batch of list items upserted into `orders`, its search
//! index and its state history. A first sync is almost all new orders, so those go in
//! through multi-row INSERTs (one statement per [`ROWS_PER_INSERT`] orders, their search
//! rows in one INSERT ... SELECT); an order already cached is read, updated, and a change
//! of state recorded, one at a time.

use crate::Db;
use std::fmt::Write as _;

use rusqlite::{Connection, Statement, params};
use rust_decimal::Decimal;

use super::{Upsert, amount_e4};
use paydesk_store::error::CoreResult;

/// Orders per multi-row INSERT (21 parameters each, two shared).
const ROWS_PER_INSERT: usize = 64;
/// Parameters of one order in the multi-row INSERT.
const PER_ROW: usize = 21;

/// `INSERT INTO orders` of `rows` orders; `?1` is the merchant, `?2` the sync's time
/// (also its `moved_at`).
fn insert_sql(rows: usize) -> String {
    let mut sql = String::from(
        "INSERT OR IGNORE INTO orders (trade_no, mer_no, mer_order_no, state, currency, source_amount, amount_e4, handling_fee,
            receive_amount, settle_amount, rolling_reserve, transaction_fixed_fee, exception_handling_fee, refund_amount,
            settlement_currency, refund_currency, rolling_reserve_status, settle, refusal_pay_reason, message,
            created_at, synced_at, moved_at, signature_verified) VALUES ",
    );
    for r in 0..rows {
        let b = 3 + r * PER_ROW;
        if r > 0 {
            sql.push(',');
        }
        sql.push_str("(?");
        write!(sql, "{b}, ?1").ok();
        for k in 1..20 {
            write!(sql, ", ?{}", b + k).ok();
        }
        // Synced and first seen moving the balance now.
        write!(sql, ", ?2, ?2, ?{})", b + 20).ok();
    }
    sql
}

/// Binds an amount as its decimal string, formatted into `buf` (SQLite copies it on
/// binding: no allocation per amount).
fn bind_decimal(
    stmt: &mut Statement<'_>,
    i: usize,
    d: Option<Decimal>,
    buf: &mut String,
) -> CoreResult<()> {
    match d {
        Some(d) => {
            buf.clear();
            write!(buf, "{d}").ok();
            stmt.raw_bind_parameter(i, buf.as_str()).db()?;
        }
        None => stmt.raw_bind_parameter(i, rusqlite::types::Null).db()?,
    }
    Ok(())
}

/// Binds one order's parameters from `base` (in [`insert_sql`]'s order). Amounts are
/// formatted into `buf`.
fn bind(stmt: &mut Statement<'_>, base: usize, u: &Upsert<'_>, buf: &mut String) -> CoreResult<()> {
    let it = u.item;
    let mut dec =
        |stmt: &mut Statement<'_>, i: usize, d: Option<Decimal>| bind_decimal(stmt, i, d, buf);
    stmt.raw_bind_parameter(base, it.trade_no.as_str()).db()?;
    stmt.raw_bind_parameter(base + 1, it.mer_order_no.as_str())
        .db()?;
    stmt.raw_bind_parameter(base + 2, it.state).db()?;
    stmt.raw_bind_parameter(base + 3, it.source_currency.as_str())
        .db()?;
    dec(stmt, base + 4, Some(it.source_amount))?;
    stmt.raw_bind_parameter(base + 5, amount_e4(it.source_amount))
        .db()?;
    dec(stmt, base + 6, it.handling_fee)?;
    dec(stmt, base + 7, it.receive_amount)?;
    dec(stmt, base + 8, it.settle_amount)?;
    dec(stmt, base + 9, it.rolling_reserve)?;
    dec(stmt, base + 10, it.transaction_fixed_fee)?;
    dec(stmt, base + 11, it.exception_handling_fee)?;
    dec(stmt, base + 12, it.refund_amount)?;
    stmt.raw_bind_parameter(base + 13, it.settlement_currency.as_str())
        .db()?;
    stmt.raw_bind_parameter(base + 14, it.refund_currency.as_str())
        .db()?;
    stmt.raw_bind_parameter(base + 15, it.rolling_reserve_status)
        .db()?;
    stmt.raw_bind_parameter(base + 16, it.settle).db()?;
    stmt.raw_bind_parameter(base + 17, it.refusal_pay_reason.as_str())
        .db()?;
    stmt.raw_bind_parameter(base + 18, it.message.as_str())
        .db()?;
    stmt.raw_bind_parameter(base + 19, u.created_at).db()?;
    stmt.raw_bind_parameter(base + 20, u.verified).db()?;
    Ok(())
}

/// What became of one order of the batch in the INSERT pass.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fate {
    Inserted,
    /// Already cached (or a later copy of an order earlier in the batch): to update.
    Cached,
    /// In a statement that inserted some of its orders only: look it up.
    Unknown,
}

/// Runs `stmt` (made by [`insert_sql`] for `chunk.len()` orders) on the orders `chunk`
/// points at; returns how many it inserted.
fn insert(
    stmt: &mut Statement<'_>,
    chunk: &[usize],
    sorted: &[&Upsert<'_>],
    mer_no: u64,
    now: i64,
    buf: &mut String,
) -> CoreResult<usize> {
    stmt.raw_bind_parameter(1, mer_no as i64).db()?;
    stmt.raw_bind_parameter(2, now).db()?;
    for (k, &i) in chunk.iter().enumerate() {
        bind(stmt, 3 + k * PER_ROW, sorted[i], buf)?;
    }
    stmt.raw_execute().db()
}

/// Writes `rows` as read at `now` (UTC millis, the caller's clock): their `synced_at`,
/// and `moved_at` of those whose balance fields changed.
pub(super) fn upsert(
    tx: &Connection,
    mer_no: u64,
    rows: &[Upsert<'_>],
    now: i64,
) -> CoreResult<usize> {
    // In trade-number order, the unique index and the search index are written in runs
    // instead of scattered. The sort is stable: two copies of one order (a page that
    // shifted under the sync) are applied in the order the list gave them.
    let mut sorted: Vec<&Upsert<'_>> = rows.iter().collect();
    sorted.sort_by(|a, b| a.item.trade_no.cmp(&b.item.trade_no));
    let mut fate = vec![Fate::Inserted; sorted.len()];
    // Only the first copy of an order goes into the INSERT pass.
    let mut firsts: Vec<usize> = Vec::with_capacity(sorted.len());
    for i in 0..sorted.len() {
        if i > 0 && sorted[i].item.trade_no == sorted[i - 1].item.trade_no {
            fate[i] = Fate::Cached;
        } else {
            firsts.push(i);
        }
    }
    // Every row inserted below gets an id above this one: that is how the search index
    // finds them, and how an order is told apart from one cached before.
    let before: i64 = tx
        .query_row("SELECT MAX(id) FROM orders", [], |r| {
            r.get::<_, Option<i64>>(0)
        })
        .db()?
        .unwrap_or(0);
    let mut inserted = 0usize;
    let mut buf = String::with_capacity(32);
    {
        let mut many = tx.prepare_cached(&insert_sql(ROWS_PER_INSERT)).db()?;
        let mut one = tx.prepare_cached(&insert_sql(1)).db()?;
        for chunk in firsts.chunks(ROWS_PER_INSERT) {
            let mut n = 0;
            if chunk.len() == ROWS_PER_INSERT {
                n += insert(&mut many, chunk, &sorted, mer_no, now, &mut buf)?;
            } else {
                for i in chunk {
                    n += insert(
                        &mut one,
                        std::slice::from_ref(i),
                        &sorted,
                        mer_no,
                        now,
                        &mut buf,
                    )?;
                }
            }
            inserted += n;
            if n < chunk.len() {
                for &i in chunk {
                    fate[i] = if n == 0 { Fate::Cached } else { Fate::Unknown };
                }
            }
        }
    }
    if inserted > 0 {
        tx.prepare_cached(
            "INSERT INTO orders_fts (rowid, trade_no, mer_order_no)
             SELECT id, trade_no, mer_order_no FROM orders WHERE id > ?1",
        )
        .db()?
        .execute([before])
        .db()?;
    }
    if fate.iter().all(|f| *f == Fate::Inserted) {
        return Ok(inserted);
    }
    update_cached(tx, &sorted, &fate, before, now).map(|changed| inserted + changed)
}

/// Binds `?1` to `?17` of the UPDATEs in [`update_cached`].
fn bind_update(
    stmt: &mut Statement<'_>,
    id: i64,
    u: &Upsert<'_>,
    now: i64,
    buf: &mut String,
) -> CoreResult<()> {
    let it = u.item;
    stmt.raw_bind_parameter(1, id).db()?;
    for (i, d) in [
        (2, it.handling_fee),
        (3, it.receive_amount),
        (4, it.settle_amount),
        (5, it.rolling_reserve),
        (6, it.transaction_fixed_fee),
        (7, it.exception_handling_fee),
        (8, it.refund_amount),
        (17, Some(it.source_amount)),
    ] {
        bind_decimal(stmt, i, d, buf)?;
    }
    stmt.raw_bind_parameter(9, it.settlement_currency.as_str())
        .db()?;
    stmt.raw_bind_parameter(10, it.refund_currency.as_str())
        .db()?;
    stmt.raw_bind_parameter(11, it.rolling_reserve_status)
        .db()?;
    stmt.raw_bind_parameter(12, it.settle).db()?;
    stmt.raw_bind_parameter(13, it.refusal_pay_reason.as_str())
        .db()?;
    stmt.raw_bind_parameter(14, it.message.as_str()).db()?;
    stmt.raw_bind_parameter(15, now).db()?;
    stmt.raw_bind_parameter(16, u.verified).db()?;
    Ok(())
}

/// Updates the orders that were cached before (in the batch's sorted order); a change
/// of state goes into the history. Returns how many changed state.
fn update_cached(
    tx: &Connection,
    sorted: &[&Upsert<'_>],
    fate: &[Fate],
    before: i64,
    now: i64,
) -> CoreResult<usize> {
    let mut current = tx
        .prepare_cached(
            "SELECT id, state, currency, amount_e4, created_at FROM orders WHERE trade_no = ?1",
        )
        .db()?;
    let mut place = tx
        .prepare_cached("UPDATE orders SET created_at = ?2 WHERE id = ?1")
        .db()?;
    // An order whose state, currency and amount are as cached (most of a re-sync) is
    // updated without its indexed columns, so SQLite rewrites the row and no index.
    let light = "UPDATE orders SET handling_fee = ?2, receive_amount = ?3, settle_amount = ?4, rolling_reserve = ?5,
            transaction_fixed_fee = ?6, exception_handling_fee = ?7, refund_amount = ?8, settlement_currency = ?9,
            refund_currency = ?10, rolling_reserve_status = ?11, settle = ?12, refusal_pay_reason = ?13, message = ?14,
            synced_at = ?15, signature_verified = ?16, source_amount = ?17";
    // What moves the balance changed (the amounts as the same formatting wrote them):
    // seen moving now, at this write's time (?15). The right side reads the row as it
    // was. State and currency are as cached on this path (else `moved` below).
    let changed = paydesk_store::dialect::sqlite_balance_changed(
        &[
            ("handling_fee", 2),
            ("rolling_reserve", 5),
            ("transaction_fixed_fee", 6),
            ("exception_handling_fee", 7),
            ("refund_amount", 8),
            ("rolling_reserve_status", 11),
            ("settle", 12),
            ("source_amount", 17),
        ],
        &["state", "currency"],
    );
    let light_moved = format!("{light}, moved_at = CASE WHEN {changed} THEN ?15 ELSE moved_at END");
    let mut same = tx
        .prepare_cached(&format!("{light_moved} WHERE id = ?1"))
        .db()?;
    let mut moved = tx
        .prepare_cached(&format!(
            "{light}, state = ?18, currency = ?19, amount_e4 = ?20, moved_at = ?15 WHERE id = ?1"
        ))
        .db()?;
    let mut history = tx.prepare_cached(
        "INSERT INTO order_history (trade_no, state, seen_at, source) VALUES (?1, ?2, ?3, 'sync')",
    ).db()?;
    let mut first_seen = tx.prepare_cached(
        "SELECT (SELECT COUNT(*) FROM order_history WHERE trade_no = ?2), created_at, made_at IS NOT NULL
         FROM orders WHERE id = ?1",
    ).db()?;
    let mut first = tx
        .prepare_cached(
            "INSERT INTO order_history (trade_no, state, seen_at, source) VALUES (?1, ?2, ?3, ?4)",
        )
        .db()?;
    let mut buf = String::with_capacity(32);
    let mut changed = 0;
    for (u, f) in sorted.iter().zip(fate) {
        if *f == Fate::Inserted {
            continue;
        }
        let it = u.item;
        let (id, old, currency, e4, day): (i64, i64, String, i64, i64) = current
            .query_row([&it.trade_no], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .db()?;
        if *f == Fate::Unknown && id > before {
            // Inserted by this batch's INSERT pass.
            continue;
        }
        if u.window_end
            .is_some_and(|end| day < u.created_at || day > end)
        {
            // Listed by a window of another day than it was cached on: the window that
            // lists it now places it.
            place.execute(params![id, u.created_at]).db()?;
        }
        let amount = amount_e4(it.source_amount);
        // What the list says, over what this desk sent (an order made here).
        let stmt = if old == it.state && currency == it.source_currency && e4 == amount {
            &mut same
        } else {
            moved.raw_bind_parameter(18, it.state).db()?;
            moved
                .raw_bind_parameter(19, it.source_currency.as_str())
                .db()?;
            moved.raw_bind_parameter(20, amount).db()?;
            &mut moved
        };
        bind_update(stmt, id, u, now, &mut buf)?;
        stmt.raw_execute().db()?;
        if old != it.state {
            // The first change also records the state the order was first seen in.
            let (seen, first_seen_at, made_here): (i64, i64, bool) = first_seen
                .query_row(params![id, it.trade_no], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })
                .db()?;
            if seen == 0 {
                let how = if made_here { "made here" } else { "first seen" };
                first
                    .execute(params![it.trade_no, old, first_seen_at, how])
                    .db()?;
            }
            history.execute(params![it.trade_no, it.state, now]).db()?;
            changed += 1;
        }
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use paydesk_gateway::wire::OrderListItem;
    use rusqlite::Connection;

    use super::super::{MadeOrder, OrderFilter, OrderKind, OrderStore, Orders, Upsert};

    fn item(n: usize, state: i64) -> OrderListItem {
        OrderListItem {
            state,
            trade_no: format!("T2026{n:08}"),
            mer_order_no: format!("M2026{n:08}"),
            source_amount: rust_decimal::Decimal::new(1234 + n as i64, 2),
            source_currency: "USD".into(),
            handling_fee: Some(rust_decimal::Decimal::new(5, 1)),
            ..OrderListItem::default()
        }
    }

    fn found(orders: &Orders<&Connection>, fragment: &str) -> i64 {
        orders
            .count(&OrderFilter {
                search: Some(fragment.into()),
                ..OrderFilter::default()
            })
            .unwrap()
    }

    /// One multi-row INSERT holding new orders, cached ones and two copies of one order:
    /// the new ones are inserted and searchable, the cached ones updated, the copies
    /// applied in the list's order, and the count is of orders new or changed.
    #[test]
    fn a_batch_of_new_cached_and_repeated_orders() {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::migrate(&mut conn).unwrap();
        let orders = Orders::on(&conn);
        // Every third order cached first, in state 2 (pending); one made by this desk.
        let cached: Vec<OrderListItem> = (0..300).step_by(3).map(|n| item(n, 2)).collect();
        assert_eq!(orders.upsert_items(1, &cached, 1_000, true).unwrap(), 100);
        orders
            .record_made(
                1,
                &MadeOrder {
                    trade_no: "T202600000003".into(),
                    mer_order_no: "M202600000003".into(),
                    kind: OrderKind::Payout,
                    method: "CLABE".into(),
                    currency: "USD".into(),
                    amount: rust_decimal::Decimal::new(1237, 2),
                    state: Some(2),
                    made_at: 500,
                },
            )
            .unwrap();
        // The batch, shuffled: all 300 (the cached ones now paid, state 5, except order
        // 6, unchanged), and order 7 twice: new in state 2, then paid.
        let mut items: Vec<OrderListItem> = (0..300)
            .map(|n| item(n, if n % 3 == 0 && n != 6 { 5 } else { 2 }))
            .collect();
        items.push(item(7, 5));
        items.swap(0, 150);
        items.swap(7, 290);
        let rows: Vec<Upsert<'_>> = items
            .iter()
            .map(|item| Upsert {
                item,
                created_at: 2_000,
                verified: true,
                window_end: None,
            })
            .collect();
        // 200 new, 99 cached that changed state, order 7's second copy a change.
        assert_eq!(orders.upsert(1, &rows).unwrap(), 200 + 99 + 1);
        assert_eq!(orders.count_all().unwrap(), 300);
        for n in [1, 7, 299] {
            assert_eq!(found(&orders, &format!("2026{n:08}")), 1, "order {n}");
        }
        assert_eq!(found(&orders, "T2026"), 300);
        let seven = orders.get("T202600000007").unwrap().unwrap();
        assert_eq!((seven.state, seven.created_at), (5, 2_000));
        assert_eq!(
            orders.history("T202600000007").unwrap(),
            vec![
                (2, 2_000, "first seen".to_string()),
                (5, seven.synced_at.unwrap(), "sync".to_string())
            ]
        );
        // A cached order keeps its date; one made here its kind and time.
        let three = orders.get("T202600000003").unwrap().unwrap();
        assert_eq!(
            (three.state, three.created_at, three.made_at, three.kind),
            (5, 500, Some(500), Some(OrderKind::Payout))
        );
        assert_eq!(three.handling_fee.as_deref(), Some("0.5"));
        assert_eq!(orders.history("T202600000003").unwrap()[0].2, "made here");
        let six = orders.get("T202600000006").unwrap().unwrap();
        assert_eq!((six.state, six.created_at), (2, 1_000));
        assert_eq!(orders.history("T202600000006").unwrap().len(), 1);
        let one = orders.get("T202600000001").unwrap().unwrap();
        assert_eq!(
            (one.source_amount.as_str(), one.handling_fee.as_deref()),
            ("12.35", Some("0.5"))
        );
        // Again, nothing changed: nothing counted.
        let same: Vec<Upsert<'_>> = rows
            .iter()
            .filter(|r| !(r.item.trade_no == "T202600000007" && r.item.state == 2))
            .copied()
            .collect();
        assert_eq!(orders.upsert(1, &same).unwrap(), 0);
    }
}
