//! Benchmark: the team's read model on a real PostgreSQL server (a scratch one from
//! `paydesk-testpg`, with PostgreSQL's own durability settings). Prints figures, asserts
//! none.
//!
//! - Fills the team's order cache with N orders through exactly the sync's write path:
//!   batches of 40,000 orders, each one `Store::cache_atomic` with `OrderStore::upsert`
//!   (one `unnest` statement) and `SyncStateStore::page_done` per page of 500;
//! - beside it, batch by batch, copies the same rows with one `COPY ... FROM STDIN` a
//!   batch into a table like `paydesk.orders` (`LIKE ... INCLUDING ALL`: every index, the
//!   trigram GIN ones too, every constraint, its fillfactor), once with its triggers and
//!   once without: the anchor;
//! - writes the first 10% again through the sync's path (a re-sync: every order cached,
//!   one in ten changed state), for the update path, its rate per order beside the first
//!   sync's;
//! - after `VACUUM ANALYZE` (what autovacuum does on a live server after a bulk load):
//!   filtered (state, currency) pages of 100 sorted by date with their total, pages at
//!   random depths read after an anchor, and fragment searches of 6 digits of an order or
//!   trade number, each as p50/p95/max.
//!
//! cargo run --release -p paydesk-core --example pg_bench -- [ORDERS]
//! (`PG_BENCH_WRITES_ONLY=1`: the writes only, no queries)

use std::sync::Arc;
use std::time::Instant;

use paydesk_core::store::Store;
use paydesk_core::store::orders::{OrderFilter, SortKey, Upsert};
use paydesk_core::store::sync_state::PageDone;
use paydesk_gateway::wire::OrderListItem;
use paydesk_store_pg::orders::{
    bench_anchor_copy, bench_anchor_drop, bench_anchor_table, bench_vacuum,
};
use paydesk_store_pg::{PgConfig, PgLink, init_team};
use paydesk_testpg::{Options, TestPg};
use rust_decimal::Decimal;

const MER_NO: i64 = 10001;
const BATCH: usize = 40_000;
const PAGE: usize = 500;
const QUERIES: usize = 200;
const CURRENCIES: [&str; 7] = ["USD", "EUR", "CNY", "MXN", "BRL", "VND", "PHP"];
const DAY: i64 = 86_400_000;
const START: i64 = 1_767_225_600_000; // 2026-01-01

fn pct(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |p: f64| v[((v.len() as f64 - 1.0) * p).round() as usize];
    (at(0.5), at(0.95), at(1.0))
}

fn timings(what: &str, v: Vec<f64>) {
    let (p50, p95, max) = pct(v);
    println!("{what}: p50 {p50:.2} ms, p95 {p95:.2} ms, max {max:.2} ms");
}

/// The machine's load averages (1, 5, 15 minutes).
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// Batch `b` of `n` orders (the same rows every time it is asked for): numbers as the
/// cache benchmark's, a fee on most, states mostly final.
fn batch(b: usize, n: usize) -> Vec<OrderListItem> {
    let mut rng = fastrand::Rng::with_seed(b as u64);
    (b * BATCH..n.min((b + 1) * BATCH))
        .map(|k| OrderListItem {
            state: [5, 5, 5, 2, 3, 4, 6, 7, 8][rng.usize(0..9)],
            mer_order_no: format!("M2026{k:09}"),
            trade_no: format!("T2026{:09}{:03}", k, rng.u32(0..1000)),
            source_amount: Decimal::new(rng.i64(100..1_000_000), 2),
            source_currency: CURRENCIES[rng.usize(0..CURRENCIES.len())].into(),
            handling_fee: rng.bool().then(|| Decimal::new(rng.i64(1..500), 2)),
            settlement_currency: "USD".into(),
            ..OrderListItem::default()
        })
        .collect()
}

/// The window a batch's orders were found in: 300 days over the whole set.
fn window(b: usize, batches: usize) -> i64 {
    START + (b as i64 * 300 / batches.max(1) as i64) * DAY
}

/// Writes batch `b` as the sync does: one transaction with its pages' progress.
fn write(store: &Store, items: &[OrderListItem], start: i64) -> usize {
    let rows: Vec<Upsert<'_>> = items
        .iter()
        .map(|item| Upsert {
            item,
            created_at: start,
            verified: true,
            window_end: None,
        })
        .collect();
    let pages = items.len().div_ceil(PAGE) as i64;
    store
        .cache_atomic(|tx| {
            let n = tx.orders.upsert(MER_NO as u64, &rows)?;
            for page in 1..=pages {
                tx.sync_state.page_done(
                    "bench",
                    PageDone {
                        window_start: start,
                        window_end: start + DAY - 1,
                        page_num: page,
                        total_pages: pages,
                        clean: true,
                    },
                )?;
            }
            Ok(n)
        })
        .expect("batch written")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let batches = n.div_ceil(BATCH);
    let t = Instant::now();
    let pg = TestPg::start_with(Options::default().durable())?;
    pg.create_database("team")?;
    let cfg = PgConfig {
        host: pg.host().into(),
        port: pg.port(),
        database: "team".into(),
        user: pg.owner().into(),
        ca_file: String::new(),
        cert_file: String::new(),
        key_file: String::new(),
    };
    let connect = || PgLink::connect(&cfg, pg.owner_password());
    let owner = connect()?;
    init_team(&owner, MER_NO)?;
    let store = Store::open_team(Arc::new(connect()?), Arc::new(connect()?), MER_NO)?;
    println!(
        "PostgreSQL started and the team schema made in {:.1} s",
        t.elapsed().as_secs_f64()
    );

    // (a) The sync's upsert beside its anchor: the same rows by one `COPY` a batch into
    // a table like `paydesk.orders` (its indexes, constraints and fillfactor), with and
    // without its triggers; one batch of each in turn, so the machine's load falls on
    // all three alike.
    println!("load average at the start: {}", load());
    bench_anchor_table(&owner, true)?;
    bench_anchor_table(&owner, false)?;
    let (mut upsert_s, mut copy_s, mut plain_s) = (0.0, 0.0, 0.0);
    let mut written = 0;
    for b in 0..batches {
        let items = batch(b, n);
        let day = window(b, batches);
        let t = Instant::now();
        bench_anchor_copy(&owner, true, MER_NO, &items, day)?;
        copy_s += t.elapsed().as_secs_f64();
        let t = Instant::now();
        written += write(&store, &items, day);
        upsert_s += t.elapsed().as_secs_f64();
        let t = Instant::now();
        bench_anchor_copy(&owner, false, MER_NO, &items, day)?;
        plain_s += t.elapsed().as_secs_f64();
    }
    let first = n as f64 / upsert_s;
    println!(
        "first sync's upsert (one statement a batch of {BATCH}): {n} orders ({written} new) in {upsert_s:.1} s = {first:.0} orders/s"
    );
    println!(
        "anchor: COPY of the same rows into a table like paydesk.orders (same indexes, constraints, fillfactor, triggers): {copy_s:.1} s = {:.0} rows/s; the upsert at {:.2}x of it (goal: 0.5x)",
        n as f64 / copy_s,
        copy_s / upsert_s
    );
    println!(
        "anchor without the triggers: {plain_s:.1} s = {:.0} rows/s; the upsert at {:.2}x of it",
        n as f64 / plain_s,
        plain_s / upsert_s
    );
    // The anchors' work is done: their tables (and their autovacuum) out of the way.
    bench_anchor_drop(&owner)?;
    let again = batches.div_ceil(10);
    let t = Instant::now();
    let mut changed = 0;
    for b in 0..again {
        let mut items = batch(b, n);
        // A re-sync: every order cached, one in ten moved on.
        for (i, it) in items.iter_mut().enumerate() {
            if i % 10 == 0 {
                it.state = if it.state == 5 { 6 } else { 5 };
            }
        }
        changed += write(&store, &items, window(b, batches));
    }
    let re = (again * BATCH).min(n);
    let s = t.elapsed().as_secs_f64();
    println!(
        "re-sync through the same upsert: {re} cached orders ({changed} changed state) in {s:.1} s = {:.0} orders/s, {:.2}x the first sync's rate per order (goal: 1x or more)",
        re as f64 / s,
        re as f64 / s / first
    );
    println!("load average after the writes: {}", load());
    if std::env::var_os("PG_BENCH_WRITES_ONLY").is_some() {
        return Ok(());
    }
    let t = Instant::now();
    bench_vacuum(&owner)?;
    println!("VACUUM ANALYZE: {:.1} s", t.elapsed().as_secs_f64());

    // (b) Filtered, sorted pages with their total.
    let mut rng = fastrand::Rng::with_seed(7);
    let orders = store.orders();
    let mut times = Vec::new();
    for q in 0..QUERIES {
        let f = OrderFilter {
            states: vec![[5, 2, 3][q % 3]],
            currencies: vec![CURRENCIES[q % CURRENCIES.len()].into()],
            sort: SortKey::Created,
            descending: q % 2 == 0,
            ..OrderFilter::default()
        };
        let offset = rng.i64(0..5_000) / 100 * 100;
        let t = Instant::now();
        let page = orders.query(&f, offset, 100)?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        assert!(page.rows.len() <= 100);
    }
    timings(
        "filtered (state, currency), sorted page of 100 (with its total)",
        times,
    );

    // Deep pages, as the screen reads them past the first 10,000 rows.
    let all = OrderFilter {
        sort: SortKey::Created,
        ..OrderFilter::default()
    };
    let t = Instant::now();
    let anchors = orders.anchors(&all)?;
    println!(
        "anchors for deep pages: {} computed in {:.0} ms (once per filter until the next sync)",
        anchors.len(),
        t.elapsed().as_secs_f64() * 1000.0
    );
    let mut times = Vec::new();
    for _ in 0..QUERIES {
        let offset = rng.i64(0..(n as i64 - 100).max(1));
        let t = Instant::now();
        orders.query_anchored(&all, &anchors, offset, 100)?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    timings("unfiltered page of 100 at a random depth, anchored", times);

    // (c) Fragment search.
    let mut times = Vec::new();
    for _ in 0..QUERIES {
        let k = rng.usize(0..n);
        let frag = if rng.bool() {
            format!("{k:09}")[2..8].to_string()
        } else {
            format!("M2026{k:09}")[7..].to_string()
        };
        let t = Instant::now();
        let page = orders.query(
            &OrderFilter {
                search: Some(frag),
                ..OrderFilter::default()
            },
            0,
            100,
        )?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        assert!(page.total >= 1);
    }
    timings(
        "fragment search (6 digits of an order or trade number, pg_trgm)",
        times,
    );
    Ok(())
}
