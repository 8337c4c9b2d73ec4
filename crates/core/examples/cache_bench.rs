//! Benchmark: 1,000,000 cached orders; filtered, sorted pages of 100 and fragment
//! searches through the core's own API (`Orders::query`). Prints p50/p95/max.
//!
//! cargo run --release -p paydesk-core --example cache_bench -- [ORDERS] [--fill FILE]
//!
//! With `--fill FILE`, the orders are written into that cache file (a profile's
//! `data/NAME.sqlite`, for the desktop app's benchmark) and nothing is timed.

use paydesk_core::store::prelude::*;
use std::time::Instant;

use paydesk_gateway::wire::OrderListItem;
use paydesk_store_sqlite::orders::{OrderFilter, Orders, SortKey};
use paydesk_store_sqlite::{self as db, Durability};

const BATCH: usize = 5000;

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
    let t = Instant::now();
    let day = 86_400_000i64;
    let start = 1_767_225_600_000i64; // 2026-01-01
    for chunk in 0..n.div_ceil(BATCH) {
        let items: Vec<OrderListItem> = (0..BATCH.min(n - chunk * BATCH))
            .map(|i| {
                let k = chunk * BATCH + i;
                OrderListItem {
                    state: [5, 5, 5, 2, 3, 4, 6, 7, 8][rng.usize(0..9)],
                    mer_order_no: format!("M2026{k:09}"),
                    trade_no: format!("T2026{:09}{:03}", k, rng.u32(0..1000)),
                    source_amount: rust_decimal::Decimal::new(rng.i64(100..1_000_000), 2),
                    source_currency: currencies[rng.usize(0..currencies.len())].into(),
                    ..OrderListItem::default()
                }
            })
            .collect();
        let window = start + (chunk as i64 * 300 / n.div_ceil(BATCH).max(1) as i64) * day;
        Orders::on(&conn).upsert_items(10001, &items, window, true)?;
    }
    println!("filled {n} orders in {:.1} s", t.elapsed().as_secs_f64());
    if fill.is_some() {
        return Ok(());
    }

    let mut page_times = Vec::new();
    for q in 0..300 {
        let f = OrderFilter {
            states: vec![[5, 2, 3][q % 3]],
            currencies: vec![currencies[q % currencies.len()].into()],
            sort: SortKey::Created,
            descending: q % 2 == 0,
            ..OrderFilter::default()
        };
        let offset = rng.i64(0..5_000) / 100 * 100;
        let t = Instant::now();
        let page = Orders::on(&conn).query(&f, offset, 100)?;
        page_times.push(t.elapsed().as_secs_f64() * 1000.0);
        assert!(page.rows.len() <= 100);
    }
    let (p50, p95, max) = pct(page_times);
    println!(
        "filtered (state, currency), sorted page of 100 (with its total): p50 {p50:.2} ms, p95 {p95:.2} ms, max {max:.2} ms"
    );

    let mut deep = Vec::new();
    for _ in 0..50 {
        let offset = rng.i64(0..(n as i64 - 100).max(1));
        let t = Instant::now();
        Orders::on(&conn).query(
            &OrderFilter {
                sort: SortKey::Created,
                ..OrderFilter::default()
            },
            offset,
            100,
        )?;
        deep.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let (p50, p95, max) = pct(deep);
    println!(
        "unfiltered page of 100 at a random depth, OFFSET only: p50 {p50:.2} ms, p95 {p95:.2} ms, max {max:.2} ms"
    );

    // What the desk does past the first 10,000 rows: read after the nearest anchor.
    let all = OrderFilter {
        sort: SortKey::Created,
        ..OrderFilter::default()
    };
    let t = Instant::now();
    let anchors = Orders::on(&conn).anchors(&all)?;
    println!(
        "anchors for deep pages: {} computed in {:.0} ms (once per filter until the next sync)",
        anchors.len(),
        t.elapsed().as_secs_f64() * 1000.0
    );
    let mut anchored = Vec::new();
    for _ in 0..300 {
        let offset = rng.i64(0..(n as i64 - 100).max(1));
        let t = Instant::now();
        Orders::on(&conn).query_anchored(&all, &anchors, offset, 100)?;
        anchored.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let (p50, p95, max) = pct(anchored);
    println!(
        "unfiltered page of 100 at a random depth, anchored: p50 {p50:.2} ms, p95 {p95:.2} ms, max {max:.2} ms"
    );

    let mut search = Vec::new();
    for _ in 0..300 {
        let k = rng.usize(0..n);
        let frag = if rng.bool() {
            format!("{k:09}")[2..8].to_string()
        } else {
            format!("M2026{k:09}")[7..].to_string()
        };
        let t = Instant::now();
        let page = Orders::on(&conn).query(
            &OrderFilter {
                search: Some(frag),
                ..OrderFilter::default()
            },
            0,
            100,
        )?;
        search.push(t.elapsed().as_secs_f64() * 1000.0);
        assert!(page.total >= 1);
    }
    let (p50, p95, max) = pct(search);
    println!(
        "fragment search (6 digits of an order or trade number): p50 {p50:.2} ms, p95 {p95:.2} ms, max {max:.2} ms"
    );
    Ok(())
}
