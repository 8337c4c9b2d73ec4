//! Benchmark: the sync's writer alone, against a raw SQLite insert of the same rows.
//!
//! Makes N order-list items shaped like the sandbox's seed (methods, currencies, fees,
//! states, trade numbers `T<day><seq>`, over 92 daily windows), then:
//!
//! - writes them through exactly the sync's path: pages of 500 from six windows at once
//!   (newest window first), gathered into batches of up to 40,000 orders, each batch one
//!   `Store::cache_atomic` with `OrderStore::upsert` and `SyncStateStore::page_done` per
//!   page, into a fresh cache file;
//! - inserts the same rows raw into a fresh file of the same schema: one transaction,
//!   one prepared `INSERT` per row with the same columns the upsert writes, and its
//!   `orders_fts` row, the plain insert a developer would write;
//! - writes the same rows through the sync's path again over the filled cache (a re-sync:
//!   every order already cached, a few changed state), for the update path.
//!
//! cargo run --release -p paydesk-core --example writer_bench -- [ORDERS] [ROUNDS]
//!
//! With `WRITER_ONLY=1` only the writer's first pass runs (for a profiler).

use std::time::Instant;

use chrono::{Duration, TimeZone, Utc};
use paydesk_core::store::Store;
use paydesk_core::store::orders::{Upsert, amount_e4};
use paydesk_core::store::sync_state::PageDone;
use paydesk_gateway::wire::OrderListItem;
use paydesk_store_sqlite::{self as db, Durability};
use rust_decimal::Decimal;

#[path = "common/proc_stat.rs"]
mod proc_stat;

const DAYS: i64 = 92;
const PAGE: usize = 500;
const BATCH_ROWS: usize = 40_000;
const WINDOWS_AT_ONCE: usize = 6;
const MER_NO: u64 = 10001;

/// CPU seconds (user and system) this process has used: on a machine shared with other
/// builds, a steadier figure than the wall clock.
fn cpu() -> f64 {
    proc_stat::cpu("self")
}

/// One daily window's orders, in the list's order.
struct Window {
    start: i64,
    end: i64,
    items: Vec<OrderListItem>,
}

fn d(s: &str) -> Decimal {
    s.parse().expect("decimal")
}

/// Orders shaped like `paydesk_sandbox::seed` (and the list items the sandbox makes of
/// them), `n` spread evenly over [`DAYS`] days.
fn make(n: usize) -> Vec<Window> {
    const PAYIN: &[(&str, &[&str])] = &[
        ("WECHAT", &["CNY"]),
        ("PIX", &["BRL"]),
        ("APPLE_PAY", &["USD", "EUR"]),
        ("CASH_APP", &["USD"]),
        ("GCASH", &["PHP"]),
        ("SEPA", &["EUR"]),
        ("VN_BANK", &["VND"]),
    ];
    let (fee_rate, fixed, reserve_rate, payout_fee) = (d("0.025"), d("0.30"), d("0.05"), d("1.00"));
    let mut rng = fastrand::Rng::with_seed(1);
    let first_day = Utc.with_ymd_and_hms(2026, 8, 24, 0, 0, 0).unwrap();
    let now = first_day + Duration::days(DAYS);
    let mut windows: Vec<Window> = (0..DAYS)
        .map(|k| {
            let start = (first_day + Duration::days(k)).timestamp_millis();
            Window {
                start,
                end: start + 86_400_000 - 1,
                items: Vec::new(),
            }
        })
        .collect();
    for i in 0..n {
        let day = (i as i64 * DAYS / n as i64) as usize;
        let created = first_day + Duration::days(day as i64);
        let payout = rng.u8(0..100) < 12;
        let currency = if payout {
            if rng.bool() { "MXN" } else { "USD" }
        } else {
            let (_, curs) = PAYIN[rng.usize(0..PAYIN.len())];
            curs[rng.usize(0..curs.len())]
        };
        let units = if currency == "VND" { 0 } else { 2 };
        let whole = match currency {
            "VND" => rng.i64(50_000..5_000_000),
            "MXN" | "PHP" => rng.i64(100..20_000),
            _ => rng.i64(5..2_000),
        };
        let mut amount = Decimal::from(whole);
        if units > 0 {
            amount += Decimal::from(rng.i64(0..100)) / Decimal::ONE_HUNDRED;
            amount.rescale(2);
        }
        let roll = rng.u8(0..100);
        let state = if payout {
            match roll {
                0..=84 => 5,
                85..=92 => 3,
                _ => 2,
            }
        } else {
            match roll {
                0..=69 => 5,
                70..=77 => 2,
                78..=84 => 3,
                85..=89 => 4,
                90..=93 => 6,
                94..=97 => 7,
                _ => 8,
            }
        };
        let (fee, fixed_fee, reserve) = if payout {
            (payout_fee, Decimal::ZERO, Decimal::ZERO)
        } else {
            (
                (amount * fee_rate).round_dp(units),
                fixed.round_dp(units),
                (amount * reserve_rate).round_dp(units),
            )
        };
        let paid = !payout && matches!(state, 5..=8);
        let settled = paid && now - created > Duration::days(3);
        let net = amount - fee - fixed_fee - reserve;
        let refunded = match state {
            6 => amount,
            7 => (amount / Decimal::TWO).round_dp(units),
            _ => Decimal::ZERO,
        };
        let trade_no = format!("T{}{:08}", created.format("%Y%m%d"), i + 1);
        let mer_order_no = format!("M{}", &trade_no[1..]);
        windows[day].items.push(OrderListItem {
            state,
            mer_order_no,
            trade_no,
            handling_fee: Some(fee),
            receive_amount: Some(if paid { net } else { Decimal::ZERO }),
            settle_amount: Some(if settled {
                net - refunded
            } else {
                Decimal::ZERO
            }),
            rolling_reserve: Some(reserve),
            transaction_fixed_fee: Some(fixed_fee),
            exception_handling_fee: Some(Decimal::ZERO),
            refund_amount: (!refunded.is_zero()).then_some(refunded),
            source_amount: amount,
            settlement_currency: currency.into(),
            refund_currency: if refunded.is_zero() {
                String::new()
            } else {
                currency.into()
            },
            source_currency: currency.into(),
            rolling_reserve_status: Some(i64::from(now - created > Duration::days(60))),
            settle: Some(i64::from(settled)),
            refusal_pay_reason: if state == 3 {
                "insufficient funds".into()
            } else {
                String::new()
            },
            message: match state {
                4 => "closed: not paid in time",
                2 => "pending",
                _ => "success",
            }
            .into(),
        });
    }
    windows
}

/// One page as the sync holds it.
struct Page<'a> {
    window: &'a Window,
    num: i64,
    total: i64,
    items: &'a [OrderListItem],
}

/// The pages in the order the sync's writer receives them: windows newest first, six
/// at once, their pages interleaved.
fn pages(windows: &[Window]) -> Vec<Page<'_>> {
    let mut out = Vec::new();
    let newest_first: Vec<&Window> = windows.iter().rev().collect();
    for group in newest_first.chunks(WINDOWS_AT_ONCE) {
        let split: Vec<Vec<&[OrderListItem]>> = group
            .iter()
            .map(|w| w.items.chunks(PAGE).collect())
            .collect();
        let most = split.iter().map(Vec::len).max().unwrap_or(0);
        for p in 0..most {
            for (w, chunks) in group.iter().zip(&split) {
                if let Some(items) = chunks.get(p) {
                    out.push(Page {
                        window: w,
                        num: p as i64 + 1,
                        total: chunks.len() as i64,
                        items,
                    });
                }
            }
        }
    }
    out
}

/// The sync's `write_batch`: one transaction per batch of pages.
fn write_batch(
    store: &Store,
    batch: &[&Page<'_>],
    verified: bool,
) -> Result<usize, Box<dyn std::error::Error>> {
    let rows: Vec<Upsert<'_>> = batch
        .iter()
        .flat_map(|p| {
            p.items.iter().map(move |item| Upsert {
                item,
                created_at: p.window.start,
                verified,
                window_end: Some(p.window.end),
            })
        })
        .collect();
    Ok(store.cache_atomic(|tx| {
        let changed = tx.orders.upsert(MER_NO, &rows)?;
        for p in batch {
            tx.sync_state.page_done(
                "bench",
                PageDone {
                    window_start: p.window.start,
                    window_end: p.window.end,
                    page_num: p.num,
                    total_pages: p.total,
                    clean: true,
                },
            )?;
        }
        Ok(changed)
    })?)
}

/// Writes every page through the sync's path; returns (seconds, orders changed).
fn sync_path(
    store: &Store,
    pages: &[Page<'_>],
) -> Result<(f64, f64, usize), Box<dyn std::error::Error>> {
    let t = Instant::now();
    let c = cpu();
    let mut changed = 0;
    let mut batch: Vec<&Page<'_>> = Vec::new();
    let mut rows = 0;
    for p in pages {
        batch.push(p);
        rows += p.items.len();
        if rows >= BATCH_ROWS {
            changed += write_batch(store, &batch, true)?;
            batch.clear();
            rows = 0;
        }
    }
    if !batch.is_empty() {
        changed += write_batch(store, &batch, true)?;
    }
    Ok((t.elapsed().as_secs_f64(), cpu() - c, changed))
}

/// The plain insert: one transaction, one prepared statement per table, one row per
/// statement, the upsert's columns and the search index's row.
fn raw(
    path: &std::path::Path,
    pages: &[Page<'_>],
) -> Result<(f64, f64), Box<dyn std::error::Error>> {
    let conn = db::open(path, Durability::Cache)?;
    let now = db::now_ms();
    let t = Instant::now();
    let c = cpu();
    let tx = conn.unchecked_transaction()?;
    {
        let mut ins = tx.prepare(
            "INSERT INTO orders (trade_no, mer_no, mer_order_no, state, currency, source_amount, amount_e4, handling_fee,
                receive_amount, settle_amount, rolling_reserve, transaction_fixed_fee, exception_handling_fee, refund_amount,
                settlement_currency, refund_currency, rolling_reserve_status, settle, refusal_pay_reason, message,
                created_at, synced_at, signature_verified)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23)",
        )?;
        let mut fts = tx.prepare(
            "INSERT INTO orders_fts (rowid, trade_no, mer_order_no) VALUES (?1, ?2, ?3)",
        )?;
        let s = |d: Option<Decimal>| d.map(|d| d.to_string());
        for p in pages {
            for it in p.items {
                ins.execute(rusqlite::params![
                    it.trade_no,
                    MER_NO as i64,
                    it.mer_order_no,
                    it.state,
                    it.source_currency,
                    it.source_amount.to_string(),
                    amount_e4(it.source_amount),
                    s(it.handling_fee),
                    s(it.receive_amount),
                    s(it.settle_amount),
                    s(it.rolling_reserve),
                    s(it.transaction_fixed_fee),
                    s(it.exception_handling_fee),
                    s(it.refund_amount),
                    it.settlement_currency,
                    it.refund_currency,
                    it.rolling_reserve_status,
                    it.settle,
                    it.refusal_pay_reason,
                    it.message,
                    p.window.start,
                    now,
                    true,
                ])?;
                fts.execute(rusqlite::params![
                    tx.last_insert_rowid(),
                    it.trade_no,
                    it.mer_order_no
                ])?;
            }
        }
    }
    tx.commit()?;
    Ok((t.elapsed().as_secs_f64(), cpu() - c))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let rounds: usize = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    let t = Instant::now();
    let mut windows = make(n);
    let pages_in_order = pages(&windows);
    println!(
        "{n} orders in {DAYS} daily windows, {} pages, made in {:.1} s",
        pages_in_order.len(),
        t.elapsed().as_secs_f64()
    );
    drop(pages_in_order);
    let mut ratios = Vec::new();
    for round in 1..=rounds {
        let dir = tempfile::tempdir()?;
        let pages_in_order = pages(&windows);
        let store = Store::open_sqlite(&dir.path().join("cache.sqlite"))?;
        let (writer, writer_cpu, changed) = sync_path(&store, &pages_in_order)?;
        assert_eq!(changed, n, "every order is new");
        assert_eq!(store.orders().count_all()?, n as i64);
        if std::env::var_os("WRITER_ONLY").is_some() {
            println!(
                "round {round}: writer {:.0} orders/s ({writer:.2} s, CPU {writer_cpu:.2} s)",
                n as f64 / writer
            );
            continue;
        }
        let (raw_secs, raw_cpu) = raw(&dir.path().join("raw.sqlite"), &pages_in_order)?;
        let (w, r) = (n as f64 / writer, n as f64 / raw_secs);
        println!(
            "round {round}: writer (sync's path, batches of {BATCH_ROWS}) {w:.0} orders/s ({writer:.2} s, CPU {writer_cpu:.2} s); raw insert {r:.0} rows/s ({raw_secs:.2} s, CPU {raw_cpu:.2} s); writer / raw {:.2} by the clock, {:.2} by CPU",
            w / r,
            raw_cpu / writer_cpu
        );
        ratios.push(w / r);
        drop(pages_in_order);
        // A re-sync over the filled cache: every order known, one in 50 changed state.
        for (k, it) in windows
            .iter_mut()
            .flat_map(|w| w.items.iter_mut())
            .enumerate()
        {
            if k % 50 == 0 {
                it.state = if it.state == 2 { 5 } else { 2 };
            }
        }
        let pages_in_order = pages(&windows);
        let (again, again_cpu, changed) = sync_path(&store, &pages_in_order)?;
        assert_eq!(changed, n.div_ceil(50), "the changed orders are counted");
        println!(
            "  re-sync of the same {n} orders ({changed} changed state): {:.0} orders/s ({again:.2} s, CPU {again_cpu:.2} s)",
            n as f64 / again
        );
    }
    if rounds > 1 {
        ratios.sort_by(f64::total_cmp);
        println!(
            "writer / raw, median of {rounds}: {:.2}",
            ratios[rounds / 2]
        );
    }
    Ok(())
}
