//! The sync engine: pulls the V2 order list by date windows, fetches windows
//! concurrently within a bound, upserts each page in one transaction, verifies every
//! page's signature (an invalid one stops the sync and caches nothing of that page),
//! re-reads orders that are not final, resumes where it stopped, and reports progress.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use chrono::{DateTime, Duration, Utc};
use futures_util::StreamExt;
use paydesk_gateway::wire::{DateLimit, MerNo, OrderListItem, V2OrderList};
use paydesk_gateway::{GatewayClient, SignatureStatus};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::error::{CoreError, CoreResult};
use crate::store::Store;
use crate::store::orders::Upsert;
use crate::store::sync_state::PageDone;
use crate::store::{self};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncOptions {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    /// Length of one window in hours (the cached date's precision).
    pub window_hours: i64,
    pub page_size: i64,
    /// Windows fetched at once.
    pub concurrency: usize,
    /// Re-read every window, even those a previous sync completed.
    pub full: bool,
}

impl SyncOptions {
    /// The last `days` days, in daily windows (a value outside 0 to [`MAX_SYNC_DAYS`]
    /// is taken at that bound here, and refused by the sync's checks).
    pub fn last_days(days: i64) -> Self {
        let to = Utc::now();
        let days = days.clamp(-1, MAX_SYNC_DAYS + 1);
        Self {
            from: to - Duration::days(days),
            to,
            window_hours: 24,
            page_size: 500,
            concurrency: 6,
            full: false,
        }
    }
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncProgress {
    pub windows_done: u64,
    pub windows_total: u64,
    pub pages: u64,
    pub orders: u64,
    pub orders_per_second: f64,
    pub eta_seconds: Option<f64>,
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncReport {
    pub progress: SyncProgress,
    /// Windows skipped because a previous sync completed them.
    pub windows_skipped: u64,
    /// Orders whose state changed.
    pub changed: u64,
    /// Open orders re-read.
    pub reread: u64,
    pub seconds: f64,
    /// Of `seconds`, the time spent writing to the cache.
    pub write_seconds: f64,
    /// Orders the gateway listed that break the desk's rules and were not cached: how
    /// many, and the first [`MAX_REFUSED_SHOWN`] with their field and rule. Their
    /// windows stay incomplete, so the next sync reads them again.
    pub refused_count: u64,
    pub refused: Vec<String>,
}

/// How many refused orders a sync report names (the count covers them all).
pub const MAX_REFUSED_SHOWN: usize = 50;

impl SyncReport {
    fn refuse(&mut self, why: Vec<String>) {
        self.refused_count += why.len() as u64;
        let room = MAX_REFUSED_SHOWN.saturating_sub(self.refused.len());
        self.refused.extend(why.into_iter().take(room));
    }
}

/// Sync's connection to the cache and where it reports.
#[derive(Debug, Clone)]
pub struct SyncTarget {
    pub store: Arc<Store>,
    pub profile: String,
    pub mer_no: u64,
    /// The order states the profile's dictionary does not call final: orders in them
    /// are re-read by an incremental sync.
    pub open_states: Vec<i64>,
}

/// Orders written in one transaction, at most (a little over).
const BATCH_ROWS: usize = 40_000;
/// How long the writer waits for more pages before writing what it has.
const BATCH_WAIT: std::time::Duration = std::time::Duration::from_millis(100);

/// A page on its way to the writer.
struct Page {
    window_start: i64,
    window_end: i64,
    page_num: i64,
    total_pages: i64,
    items: Vec<OrderListItem>,
    verified: bool,
    /// Items of this page not cached, each with the field and rule it broke.
    refused: Vec<String>,
    /// No item of the window was refused so far: only then can it be complete.
    clean: bool,
}

fn fmt(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%S").to_string()
}

fn ms(t: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(t).unwrap_or_default()
}

/// The longest span a sync covers: ten years.
pub const MAX_SYNC_DAYS: i64 = 3650;

fn windows(o: &SyncOptions) -> CoreResult<Vec<(DateTime<Utc>, DateTime<Utc>)>> {
    if o.to <= o.from {
        return Err(CoreError::validation(
            "days",
            "must be 1 or more (to must be after from)",
        ));
    }
    if o.to - o.from > Duration::days(MAX_SYNC_DAYS) {
        return Err(CoreError::validation(
            "days",
            format!("must be at most {MAX_SYNC_DAYS} (ten years)"),
        ));
    }
    if !(1..=24 * 31).contains(&o.window_hours) {
        return Err(CoreError::validation(
            "windowHours",
            "must be between 1 and 744",
        ));
    }
    paydesk_gateway::validate::page_size("pageSize", o.page_size)?;
    // Windows sit on a fixed grid (multiples of the window length since the epoch,
    // UTC), so a later sync finds the windows an earlier one completed.
    let step_ms = o.window_hours * 3_600_000;
    let to_ms = o.to.timestamp_millis().div_euclid(1000) * 1000;
    let mut start = o.from.timestamp_millis().div_euclid(step_ms) * step_ms;
    let mut out = Vec::new();
    while start < to_ms {
        let end = (start + step_ms).min(to_ms);
        if end - start >= 1000 {
            // dateLimit is inclusive to the second: end one second before the next start.
            out.push((ms(start), ms(end - 1000)));
        }
        start += step_ms;
    }
    Ok(out)
}

/// Runs a sync. `cancel` stops it between pages; what was written stays, and the next
/// sync resumes with the windows not yet complete.
pub async fn run(
    client: &GatewayClient,
    target: &SyncTarget,
    opts: &SyncOptions,
    cancel: Arc<AtomicBool>,
    mut progress: impl FnMut(&SyncProgress) + Send,
) -> CoreResult<SyncReport> {
    let started = Instant::now();
    let all = windows(opts)?;
    let now = Utc::now();
    // The window holding "now" is never complete: orders keep arriving in it.
    let todo: Vec<(DateTime<Utc>, DateTime<Utc>)> = {
        let progress = target.store.sync_state();
        let mut todo = Vec::new();
        for w in &all {
            let done = !opts.full
                && w.1 < now
                && progress.window_complete(
                    &target.profile,
                    w.0.timestamp_millis(),
                    w.1.timestamp_millis(),
                )?;
            if !done {
                todo.push(*w);
            }
        }
        todo
    };
    let mut report = SyncReport {
        windows_skipped: (all.len() - todo.len()) as u64,
        ..SyncReport::default()
    };
    report.progress.windows_total = todo.len() as u64;

    let (tx, mut rx) = mpsc::channel::<CoreResult<Page>>(opts.concurrency.max(1) * 2);
    // The fetching runs as its own task, so pages keep arriving while this task writes
    // the previous ones to SQLite.
    let fetch = {
        let client = client.clone();
        let cancel = cancel.clone();
        let mer_no = target.mer_no;
        let page_size = opts.page_size;
        let concurrency = opts.concurrency.max(1);
        let todo = todo.clone();
        let tx = tx.clone();
        tokio::spawn(async move {
            futures_util::stream::iter(todo)
                .map(|(from, to)| {
                    let tx = tx.clone();
                    let cancel = cancel.clone();
                    let client = &client;
                    async move {
                        let mut page_num = 1;
                        let mut clean = true;
                        loop {
                            if cancel.load(Ordering::Relaxed) {
                                return;
                            }
                            let op = V2OrderList {
                                mer_no: MerNo(mer_no),
                                mer_order_nos: vec![],
                                trade_nos: vec![],
                                date_limit: Some(DateLimit {
                                    from: fmt(from),
                                    to: fmt(to),
                                }),
                                page_num,
                                page_size,
                                version: V2OrderList::VERSION.into(),
                            };
                            let page = crate::desk::ask(client, &op)
                                .await
                                .map_err(CoreError::from)
                                .and_then(|a| {
                                    crate::answers::order_page(&a.data, page_size)?;
                                    Ok(a)
                                })
                                .map(|a| {
                                    // Items that break the desk's rules are not cached;
                                    // the rest of the page is.
                                    let (items, refused) =
                                        crate::answers::usable_items(a.data.list);
                                    clean &= refused.is_empty();
                                    Page {
                                        window_start: from.timestamp_millis(),
                                        window_end: to.timestamp_millis(),
                                        page_num,
                                        total_pages: a.data.total_page.max(1),
                                        verified: a.signature == SignatureStatus::Verified,
                                        items,
                                        refused,
                                        clean,
                                    }
                                });
                            let last = match &page {
                                Ok(p) => p.page_num >= p.total_pages,
                                Err(_) => true,
                            };
                            if tx.send(page).await.is_err() || last {
                                return;
                            }
                            page_num += 1;
                        }
                    }
                })
                .buffer_unordered(concurrency)
                .collect::<Vec<()>>()
                .await;
        })
    };
    drop(tx);

    let writer = async {
        let mut failure: Option<CoreError> = None;
        while let Some(first) = rx.recv().await {
            // Take whatever else arrives soon, up to BATCH_ROWS orders, into one transaction.
            let mut batch = Vec::new();
            let mut rows = 0;
            let mut next = Some(first);
            while let Some(page) = next.take() {
                match page {
                    Ok(p) => {
                        rows += p.items.len();
                        batch.push(p);
                    }
                    Err(e) => {
                        // Stop fetching; keep what was written, and nothing of this page.
                        cancel.store(true, Ordering::Relaxed);
                        failure.get_or_insert(e);
                    }
                }
                if rows < BATCH_ROWS {
                    // Wait a little for more: fewer, larger transactions rewrite far fewer
                    // index pages, which is what bounds the sync's speed.
                    next = match rx.try_recv() {
                        Ok(p) => Some(p),
                        Err(_) => tokio::time::timeout(BATCH_WAIT, rx.recv())
                            .await
                            .ok()
                            .flatten(),
                    };
                }
            }
            if batch.is_empty() {
                continue;
            }
            let w = Instant::now();
            let changed = write_batch(target, &batch)?;
            report.write_seconds += w.elapsed().as_secs_f64();
            report.changed += changed as u64;
            for page in &mut batch {
                for why in &page.refused {
                    tracing::warn!(%why, "order not cached");
                }
                report.refuse(std::mem::take(&mut page.refused));
            }
            let p = &mut report.progress;
            for page in &batch {
                p.pages += 1;
                p.orders += page.items.len() as u64;
                if page.page_num >= page.total_pages {
                    p.windows_done += 1;
                }
            }
            let secs = started.elapsed().as_secs_f64().max(1e-3);
            p.orders_per_second = p.orders as f64 / secs;
            p.eta_seconds = (p.windows_done > 0)
                .then(|| secs / p.windows_done as f64 * (p.windows_total - p.windows_done) as f64);
            progress(p);
        }
        match failure {
            Some(e) => Err(e),
            None => Ok(()),
        }
    };
    let written = writer.await;
    cancel.store(
        written.is_err() || cancel.load(Ordering::Relaxed),
        Ordering::Relaxed,
    );
    // A fetch waiting to hand over a page must not wait for a writer that stopped.
    drop(rx);
    let _ = fetch.await;
    if let Err(e) = written {
        record_error(target, &e);
        return Err(e);
    }
    if cancel.load(Ordering::Relaxed) {
        return Err(CoreError::Cancelled);
    }
    // Orders still open in windows this run skipped as complete may have moved since.
    report.reread = reread_open(
        client,
        target,
        opts.from.timestamp_millis(),
        opts.to.timestamp_millis(),
        &mut report,
    )
    .await?;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Writes a batch of pages and their windows' progress in one transaction. A page
/// runs in milliseconds, on the calling task, so the engine works on any runtime.
fn write_batch(target: &SyncTarget, batch: &[Page]) -> CoreResult<usize> {
    let rows: Vec<Upsert<'_>> = batch
        .iter()
        .flat_map(|p| {
            p.items.iter().map(move |item| Upsert {
                item,
                created_at: p.window_start,
                verified: p.verified,
            })
        })
        .collect();
    target.store.cache_atomic(|tx| {
        let changed = tx.orders.upsert(target.mer_no, &rows)?;
        for page in batch {
            tx.sync_state.page_done(
                &target.profile,
                PageDone {
                    window_start: page.window_start,
                    window_end: page.window_end,
                    page_num: page.page_num,
                    total_pages: page.total_pages,
                    clean: page.clean,
                },
            )?;
        }
        Ok(changed)
    })
}

fn record_error(target: &SyncTarget, e: &CoreError) {
    if let Err(w) = target
        .store
        .sync_state()
        .record_error(&target.profile, &e.to_string())
    {
        tracing::warn!(error = %w, "sync failure not recorded");
    }
}

/// Re-reads cached orders of the synced range that are not final, 100 trade numbers
/// per request.
async fn reread_open(
    client: &GatewayClient,
    target: &SyncTarget,
    from: i64,
    to: i64,
    report: &mut SyncReport,
) -> CoreResult<u64> {
    let open = target
        .store
        .orders()
        .open_orders(&target.open_states, from, to)?;
    let mut n = 0;
    for chunk in open.chunks(100) {
        let op = V2OrderList {
            mer_no: MerNo(target.mer_no),
            mer_order_nos: vec![],
            trade_nos: chunk.to_vec(),
            date_limit: None,
            page_num: 1,
            page_size: 100,
            version: V2OrderList::VERSION.into(),
        };
        let a = crate::desk::ask(client, &op).await?;
        crate::answers::order_page(&a.data, 100)?;
        let verified = a.signature == SignatureStatus::Verified;
        let (mut items, mut refused) = crate::answers::usable_items(a.data.list);
        items.retain(|i| {
            let asked = chunk.contains(&i.trade_no);
            if !asked {
                refused.push(format!(
                    "{} tradeNo was not asked for",
                    paydesk_gateway::redact::terminal_safe(&i.trade_no, 64)
                ));
            }
            asked
        });
        report.refuse(refused);
        // An order already cached keeps its date: `created_at` here is ignored on conflict.
        target
            .store
            .orders()
            .upsert_items(target.mer_no, &items, store::now_ms(), verified)?;
        n += items.len() as u64;
    }
    target.store.sync_state().clear_error(&target.profile)?;
    Ok(n)
}
