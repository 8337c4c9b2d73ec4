//! Benchmark: a month's statement over 1,000,000 cached orders (300 days of them, about
//! 100,000 in a month), every currency and one, through the core's own API
//! (`Statement::build` on the SQLite cache); and the month's CSV and XLSX exports.
//! Prints p50/p95/max.
//!
//! cargo run --release -p paydesk-reports --example statement_bench -- [ORDERS] [--fill FILE] [--statements]
//!
//! With `--fill FILE`, the orders are written into that cache file and nothing is timed;
//! with `--statements`, only the statements and failure breakdowns are timed (no exports).

use std::time::Instant;

use paydesk_core::store::prelude::*;
use paydesk_gateway::StateDictionary;
use paydesk_gateway::wire::OrderListItem;
use paydesk_reports::statement::{Period, Statement};
use paydesk_store_sqlite::orders::Orders;
use paydesk_store_sqlite::{self as db, Durability};
use rust_decimal::Decimal;

const BATCH: usize = 5000;
const DAY: i64 = 86_400_000;

fn pct(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |p: f64| v[((v.len() as f64 - 1.0) * p).round() as usize];
    (at(0.5), at(0.95), at(1.0))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let args: Vec<String> = std::env::args().collect();
    let fill = args
        .iter()
        .position(|a| a == "--fill")
        .and_then(|i| args.get(i + 1))
        .map(std::path::PathBuf::from);
    let dir = tempfile::tempdir()?;
    let path = fill
        .clone()
        .unwrap_or_else(|| dir.path().join("bench.sqlite"));
    let conn = db::open(&path, Durability::Cache)?;
    let mut rng = fastrand::Rng::with_seed(7);
    let currencies = ["USD", "EUR", "CNY", "MXN", "BRL", "VND", "PHP"];
    let start = 1_767_225_600_000i64; // 2026-01-01
    let t = Instant::now();
    for chunk in 0..n.div_ceil(BATCH) {
        let items: Vec<OrderListItem> = (0..BATCH.min(n - chunk * BATCH))
            .map(|i| {
                let k = chunk * BATCH + i;
                let amount = Decimal::new(rng.i64(100..1_000_000), 2);
                let paid = rng.u8(0..10) < 7;
                let fee = |rate: i64| Some((amount * Decimal::new(rate, 4)).round_dp(2));
                OrderListItem {
                    state: [5, 5, 5, 2, 3, 4, 6, 7, 8][rng.usize(0..9)],
                    mer_order_no: format!("M2026{k:09}"),
                    trade_no: format!("T2026{:09}{:03}", k, rng.u32(0..1000)),
                    source_amount: amount,
                    source_currency: currencies[rng.usize(0..currencies.len())].into(),
                    handling_fee: fee(250),
                    transaction_fixed_fee: Some(Decimal::new(30, 2)),
                    exception_handling_fee: Some(Decimal::ZERO),
                    rolling_reserve: fee(500),
                    rolling_reserve_status: Some(i64::from(rng.bool())),
                    settle: Some(i64::from(paid)),
                    settle_amount: if paid { fee(9000) } else { Some(Decimal::ZERO) },
                    receive_amount: fee(9200),
                    ..OrderListItem::default()
                }
            })
            .collect();
        let window = start + (chunk as i64 * 300 / n.div_ceil(BATCH).max(1) as i64) * DAY;
        Orders::on(&conn).upsert_items(10001, &items, window, true)?;
    }
    println!("filled {n} orders in {:.1} s", t.elapsed().as_secs_f64());
    if fill.is_some() {
        return Ok(());
    }

    let dict = StateDictionary::default();
    let orders = Orders::on(&conn);
    for currency in [None, Some("USD")] {
        // The first time a month is read its days are summed from the orders (and kept);
        // after that they are read as kept (`report_days`).
        let (mut summed, mut kept) = (Vec::new(), Vec::new());
        let mut in_month = 0;
        for q in 0..40 {
            // Months 1 to 9 of the 300 days, in turn.
            let from = start + (q % 9 + 1) * 30 * DAY;
            let period = Period::new(from, from + 30 * DAY)?;
            let t = Instant::now();
            let s = Statement::build(&orders, &dict, period, currency)?;
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            if q < 9 && currency.is_none() {
                summed.push(ms);
            } else {
                kept.push(ms);
            }
            in_month = s.orders;
        }
        let which = currency.unwrap_or("every currency");
        if !summed.is_empty() {
            let (p50, p95, max) = pct(summed);
            println!(
                "a month's statement ({which}, {in_month} orders), its days summed from the orders: p50 {p50:.1} ms, p95 {p95:.1} ms, max {max:.1} ms"
            );
        }
        let (p50, p95, max) = pct(kept);
        println!(
            "a month's statement ({which}, {in_month} orders), its days as kept: p50 {p50:.1} ms, p95 {p95:.1} ms, max {max:.1} ms"
        );
    }
    {
        // The failure breakdown (Reports' second figure), a month and the month before.
        let zone = paydesk_reports::statement::Zone::UTC;
        let (mut summed, mut kept) = (Vec::new(), Vec::new());
        for q in 0..18 {
            let from = start + (q % 9 + 1) * 30 * DAY;
            let period = Period::new(from, from + 30 * DAY)?;
            let t = Instant::now();
            paydesk_reports::failures::FailureReport::build(&orders, &dict, period, &zone)?;
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            if q < 9 {
                summed.push(ms)
            } else {
                kept.push(ms)
            }
        }
        let (p50, p95, max) = pct(summed);
        println!(
            "a month's failure breakdown and the month before's, first read (the month before kept): p50 {p50:.1} ms, p95 {p95:.1} ms, max {max:.1} ms"
        );
        let (p50, p95, max) = pct(kept);
        println!("the same, its days as kept: p50 {p50:.1} ms, p95 {p95:.1} ms, max {max:.1} ms");
    }
    if args.iter().any(|a| a == "--statements") {
        return Ok(());
    }

    let utc = chrono::FixedOffset::east_opt(0).ok_or("UTC")?;
    let month = Period::new(start + 30 * DAY, start + 60 * DAY)?;
    let everything = Period::new(start, start + 301 * DAY)?;
    for (period, name) in [
        (month, "month.csv"),
        (month, "month.xlsx"),
        (month, "month.pdf"),
        (everything, "all.csv"),
        (everything, "all.xlsx"),
        (everything, "all.pdf"),
    ] {
        let s = Statement::build(&orders, &dict, period, None)?;
        let before = reset_peak();
        let t = Instant::now();
        let made = paydesk_reports::statement::export::export(
            &orders,
            &s,
            &dict,
            paydesk_core::output::create(
                &dir.path().join(name),
                paydesk_core::output::Existing::Replace,
            )?,
            utc,
            0,
            "bench",
        )?;
        let took = t.elapsed().as_secs_f64();
        println!(
            "the statement to {name} with its {} orders: {took:.2} s, peak resident memory {} MB (from {before} MB)",
            made.rows,
            peak_mb().unwrap_or(0),
        );
        std::fs::remove_file(dir.path().join(name))?;
    }
    Ok(())
}

/// Resets the process's peak resident memory to what it holds now (Linux), and returns
/// that, in MB.
fn reset_peak() -> u64 {
    // "5" to clear_refs resets VmHWM (Linux 4.0 and later).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    peak_mb().unwrap_or(0)
}

/// The peak resident memory since the last reset, in MB (Linux; `None` elsewhere).
fn peak_mb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}
