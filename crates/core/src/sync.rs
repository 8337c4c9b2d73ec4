//! The sync engine: pulls the V2 order list by date windows, newest first, with a
//! bounded number of requests in flight kept full across windows (empty stretches
//! counted with one request, a window's pages asked at once); upserts pages in batches
//! on a writer thread; verifies every page's signature (an invalid one stops the sync
//! and caches nothing of that page); asks a lost page again; re-reads orders that are
//! not final; resumes where it stopped; and reports progress with the time left.
//!
//! # When a window is complete
//!
//! A window is marked complete in `sync_state` (and skipped by the next plain sync)
//! only when what was read of it adds up:
//!
//! - read page by page: one read of it, every page from the first to the last it was
//!   found to have, states the same `total`, lists no order that another of its pages
//!   listed, and lists exactly `total` distinct orders;
//! - read as part of a stretch: one page held every order of the stretch (as many as
//!   its `total`), and the window's share was read or worked out from it (see
//!   [`fetch_all`]);
//! - and none of its orders was listed by another window of the run, and none broke the
//!   desk's rules.
//!
//! A read that does not add up (a page that came back short, an order repeated from
//! another page, pages that shifted while they were read, a `total` that moved) is read
//! again from its first page, up to [`READS_PER_WINDOW`] reads in a run. A live list
//! gains orders while it is read: the rule then waits for a read during which nothing
//! arrived (all its pages agree on `total`), which is what a window in the past gives
//! at once. A window that still does not add up is left incomplete, named in the
//! report ([`SyncReport::incomplete`]) with why, and read again by the next sync; the
//! orders it did list are cached all the same. An order listed by two windows of a run
//! is kept on the day of the window that listed it first (not moved by the second), and
//! both windows are left incomplete and named: the gateway's list says two different
//! days. Whenever a window lists an order cached on a day outside it (the next sync's
//! reads of those windows), the order moves to that window's day: the list as it now
//! reads places it.
//!
//! A window that may still gain orders (it ended less than [`SETTLE_MARGIN`] ago) is
//! read by the same rule but never marked complete, and is not named when it does not
//! add up: every sync reads it again, and on a busy day orders arrive during every read.
//!
//! A window whose first page says it holds more orders than [`MAX_PAGES_PER_WINDOW`]
//! pages of the run's page size is not followed: it is named with the bound and left
//! incomplete, after one request.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use chrono::{DateTime, Duration, Utc};
use futures_util::StreamExt;
use paydesk_gateway::wire::{DateLimit, MerNo, OrderListItem, OrderListPage, V2OrderList};
use paydesk_gateway::{Answer, GatewayClient, GatewayError, SignatureStatus};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::error::{CoreError, CoreResult};
use crate::store::Store;
use crate::store::orders::Upsert;
use crate::store::sync_state::PageDone;

mod tally;

use tally::{Book, Tally};
pub use tally::{MAX_PAGES_PER_WINDOW, READS_PER_WINDOW, window_words};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncOptions {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    /// Length of one window in hours (the cached date's precision).
    pub window_hours: i64,
    pub page_size: i64,
    /// Requests to the gateway in flight at once, at most (kept full across windows).
    pub in_flight: usize,
    /// Re-read every window, even those a previous sync completed.
    pub full: bool,
}

/// The page size a sync asks for unless the profile says otherwise: the largest the
/// sandbox serves.
pub const DEFAULT_PAGE_SIZE: i64 = 500;
/// Requests in flight unless the profile says otherwise.
pub const DEFAULT_IN_FLIGHT: usize = 8;
/// The most requests in flight a profile may set.
pub const MAX_IN_FLIGHT: usize = 64;

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
            page_size: DEFAULT_PAGE_SIZE,
            in_flight: DEFAULT_IN_FLIGHT,
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
    /// The orders the run's windows hold, as the gateway's counts say so far (windows
    /// not counted yet are estimated from those that are); none before the first count.
    pub orders_expected: Option<u64>,
    /// Requests sent to the gateway so far (counts, pages and pages asked again).
    pub requests: u64,
    pub orders_per_second: f64,
    /// The time left at the rate so far; none until something is counted.
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
    /// Requests sent to the gateway by the windows' reading (counts, pages, pages asked
    /// again), and of those, the ones that asked a lost page again.
    pub requests: u64,
    pub retries: u64,
    /// Windows read again because a read of them did not add up (each read again
    /// counted once).
    pub windows_reread: u64,
    /// Windows this run read that are not complete because what was read of them does
    /// not add up (or their `total` is over the desk's bound): how many, and the first
    /// [`MAX_REFUSED_SHOWN`] in words with why. The next sync reads them again. (Open
    /// windows, never complete, are not named.)
    pub incomplete_count: u64,
    pub incomplete: Vec<String>,
}

/// How many refused orders (and incomplete windows) a sync report names (the count
/// covers them all).
pub const MAX_REFUSED_SHOWN: usize = 50;

impl SyncReport {
    fn refuse(&mut self, why: Vec<String>) {
        self.refused_count += why.len() as u64;
        let room = MAX_REFUSED_SHOWN.saturating_sub(self.refused.len());
        self.refused.extend(why.into_iter().take(room));
    }

    fn incomplete(&mut self, window: String) {
        self.incomplete_count += 1;
        if self.incomplete.len() < MAX_REFUSED_SHOWN {
            self.incomplete.push(window);
        }
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
    /// The desk's clock: when the orders written were read (`synced_at`, and
    /// `moved_at` of those whose balance fields changed), on every backend.
    pub clock: Arc<dyn crate::clock::Clock>,
}

/// Orders written in one transaction, at most (a little over).
const BATCH_ROWS: usize = 40_000;
/// How long the writer waits for more pages before writing what it has.
const BATCH_WAIT: std::time::Duration = std::time::Duration::from_millis(100);
/// Orders from which the writer writes a batch without waiting for more.
const BATCH_MIN: usize = 5_000;

/// A page on its way to the writer, or what a window's reading came to.
struct Page {
    /// The window's place in the run (0 is the newest).
    window: usize,
    window_start: i64,
    window_end: i64,
    total_pages: i64,
    items: Vec<OrderListItem>,
    verified: bool,
    /// Items of this page not cached, each with the field and rule it broke.
    refused: Vec<String>,
    /// Pages of the list this stands for: 1, or 0 for a verdict alone.
    pages: u64,
    /// Whether the window's reading adds up (and if not, why), once it is over; none
    /// while pages of it are still to come.
    verdict: Option<Result<(), String>>,
}

impl Page {
    /// A page of `window` with the items the gateway listed: those that break the
    /// desk's rules are not cached, and are named.
    fn listed(
        (window, (from, to)): (usize, (DateTime<Utc>, DateTime<Utc>)),
        list: Vec<OrderListItem>,
        verified: bool,
        total_pages: i64,
    ) -> Self {
        let (items, refused) = crate::answers::usable_items(list);
        Page {
            window,
            window_start: from.timestamp_millis(),
            window_end: to.timestamp_millis(),
            total_pages,
            items,
            verified,
            refused,
            pages: 1,
            verdict: None,
        }
    }

    /// The one page of a window the gateway counted empty.
    fn empty((window, w): (usize, (DateTime<Utc>, DateTime<Utc>))) -> Self {
        Page {
            verdict: Some(Ok(())),
            ..Page::listed((window, w), Vec::new(), true, 1)
        }
    }

    /// What the reading of a window of `total_pages` pages came to.
    fn verdict(
        (window, w): (usize, (DateTime<Utc>, DateTime<Utc>)),
        total_pages: i64,
        verdict: Result<(), String>,
    ) -> Self {
        Page {
            pages: 0,
            verdict: Some(verdict),
            ..Page::listed((window, w), Vec::new(), true, total_pages)
        }
    }
}

/// A moment as `dateLimit` spells it: the wall-clock time in the zone the gateway reads
/// it in (the profile's conventions, `timeZone`), so a window asks for the same
/// instants whatever that zone is, and the newest window reaches the gateway's "now".
fn fmt(t: DateTime<Utc>, zone: chrono_tz::Tz) -> String {
    t.with_timezone(&zone)
        .format("%Y-%m-%d %H:%M:%S")
        .to_string()
}

fn ms(t: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(t).unwrap_or_default()
}

/// The longest span a sync covers: ten years.
pub const MAX_SYNC_DAYS: i64 = 3650;

fn windows(o: &SyncOptions) -> CoreResult<Vec<(DateTime<Utc>, DateTime<Utc>)>> {
    if o.to <= o.from {
        return Err(CoreError::keyed(
            "days",
            "must be 1 or more (to must be after from)",
            "syncDaysMin",
            &[],
        ));
    }
    if o.to - o.from > Duration::days(MAX_SYNC_DAYS) {
        return Err(CoreError::keyed(
            "days",
            format!("must be at most {MAX_SYNC_DAYS} (ten years)"),
            "syncDaysMax",
            &[("max", MAX_SYNC_DAYS.to_string())],
        ));
    }
    if !(1..=24 * 31).contains(&o.window_hours) {
        return Err(CoreError::keyed(
            "windowHours",
            "must be between 1 and 744",
            "windowHoursRange",
            &[],
        ));
    }
    paydesk_gateway::validate::page_size("pageSize", o.page_size)?;
    // Windows sit on a fixed grid (multiples of the window length since the epoch,
    // UTC), so a later sync finds the windows an earlier one completed.
    let step_ms = o.window_hours * 3_600_000;
    // Up to the end of `to`'s second (`dateLimit` is to the second, inclusive): an order
    // made earlier in that second is read, not left to a later sync.
    let to_ms = (o.to.timestamp_millis() + 999).div_euclid(1000) * 1000;
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

/// A unit of fetching: page `page` of one window, or (`span` > 1) the first page of
/// `span` adjacent windows read together. Ordered newest first (`window` 0 is the
/// newest window of the run), then by page.
#[derive(Debug, Clone)]
struct Job {
    window: usize,
    page: i64,
    span: usize,
    /// Which read of the window this page belongs to, from 1.
    read: u32,
    /// The orders of this job were already counted in the expected total (it came from
    /// a wider read).
    counted: bool,
    /// When this job is the newer half of a span whose orders are all known: that span,
    /// so the older half's orders are those of the span less this half's.
    whole: Option<Arc<Known>>,
}

/// The orders of `span` windows from `window` on, all of them (one page held them).
#[derive(Debug)]
struct Known {
    window: usize,
    span: usize,
    items: Vec<OrderListItem>,
    verified: bool,
}

impl Job {
    fn key(&self) -> (usize, i64, usize, u32) {
        (self.window, self.page, self.span, self.read)
    }

    fn page(window: usize, page: i64, read: u32) -> Self {
        Job {
            window,
            page,
            span: 1,
            read,
            counted: true,
            whole: None,
        }
    }

    /// The first page of `span` windows from `window` on read together (of the window
    /// when the span is one).
    fn span(window: usize, span: usize, counted: bool, whole: Option<Arc<Known>>) -> Self {
        Job {
            window,
            page: 1,
            span,
            read: 1,
            counted,
            whole,
        }
    }
}

impl PartialEq for Job {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Job {}

impl PartialOrd for Job {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Job {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

/// How long after a window ends it may still gain orders (a gateway's list can show an
/// order late, and clocks differ): a window that ended less than this ago is read on
/// its own, never taken as complete, and read again by the next sync.
pub const SETTLE_MARGIN: std::time::Duration = std::time::Duration::from_secs(3600);
/// Pages of one window asked for ahead of the last one answered, at most (a gateway
/// that claims millions of pages is read as it answers, not queued all at once).
const PAGES_AHEAD: i64 = 64;

/// The widest span of windows read together with one request (a sparse stretch of
/// days costs a few requests instead of one a day).
pub const MAX_SPAN: usize = 32;
/// How often a page whose answer was lost (time-out, cut, HTTP 5xx or 429, no
/// connection) is asked again before the sync stops; reading a page changes nothing at
/// the gateway.
const RETRIES: u32 = 3;
/// The first pause before asking again; it doubles each time.
const RETRY_PAUSE: std::time::Duration = std::time::Duration::from_millis(250);

/// Whether a failed read may be asked again: its answer was lost on the way, not
/// refused or unreadable.
fn worth_retrying(e: &GatewayError) -> bool {
    matches!(
        e,
        GatewayError::OutcomeUnknown { .. }
            | GatewayError::NotSent { .. }
            | GatewayError::Http {
                status: 429 | 502 | 503 | 504,
                ..
            }
    )
}

/// What the fetching tells the writer and the progress.
#[derive(Debug, Default)]
struct Counts {
    /// Orders the gateway said the run's windows hold, as far as counted.
    expected: AtomicU64,
    /// Windows whose count is known.
    windows_counted: AtomicU64,
    requests: AtomicU64,
    retries: AtomicU64,
    /// Windows read again because a read of them did not add up.
    rereads: AtomicU64,
}

/// Runs a sync. `cancel` stops it between pages; what was written stays, and the next
/// sync resumes with the windows not yet complete.
///
/// The windows of the run are read newest first, so the newest days are cached first.
/// Adjacent windows are first counted together (one request of one order for up to
/// [`MAX_SPAN`] windows): an empty stretch is then complete at once, a dense one is
/// split into its windows, a sparse one in halves. A window's first page says how
/// many pages it has, and the others are asked at once. At most `in_flight` requests
/// are out at any time, kept full across windows; the writer runs on its own thread
/// while the next pages arrive.
pub async fn run(
    client: &GatewayClient,
    target: &SyncTarget,
    opts: &SyncOptions,
    cancel: Arc<AtomicBool>,
    mut progress: impl FnMut(&SyncProgress) + Send,
) -> CoreResult<SyncReport> {
    let started = Instant::now();
    if !(1..=MAX_IN_FLIGHT).contains(&opts.in_flight) {
        return Err(CoreError::keyed(
            "inFlight",
            format!("must be between 1 and {MAX_IN_FLIGHT}"),
            "inFlightRange",
            &[("max", MAX_IN_FLIGHT.to_string())],
        ));
    }
    let all = windows(opts)?;
    // A window that ended less than SETTLE_MARGIN ago (or holds "now") is never complete:
    // orders keep arriving in it.
    let settled = Utc::now() - Duration::from_std(SETTLE_MARGIN).unwrap_or_default();
    let mut todo: Vec<(DateTime<Utc>, DateTime<Utc>)> = {
        let progress = target.store.sync_state();
        let mut todo = Vec::new();
        for w in &all {
            let done = !opts.full
                && w.1 < settled
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
    // The stretches of windows skipped as complete, as `[start, end)` in UTC millis.
    let mut skipped: Vec<(i64, i64)> = Vec::new();
    {
        let read: HashSet<i64> = todo.iter().map(|w| w.0.timestamp_millis()).collect();
        for w in all
            .iter()
            .filter(|w| !read.contains(&w.0.timestamp_millis()))
        {
            let (start, end) = (w.0.timestamp_millis(), w.1.timestamp_millis() + 1000);
            match skipped.last_mut() {
                Some(last) if last.1 == start => last.1 = end,
                _ => skipped.push((start, end)),
            }
        }
    }
    // Newest first.
    todo.reverse();
    // The open windows are the newest ones: read each on its own.
    let open = todo.iter().take_while(|w| w.1 >= settled).count();
    let settled_ms = settled.timestamp_millis();
    let mut report = SyncReport {
        windows_skipped: (all.len() - todo.len()) as u64,
        ..SyncReport::default()
    };
    report.progress.windows_total = todo.len() as u64;
    let counts = Arc::new(Counts::default());
    // Under a rate limit, more requests in flight than two seconds' worth only wait at
    // the limit, and every other request of the desk (a payout sent meanwhile) would wait
    // behind them: at most two seconds' worth are out.
    let in_flight = match client.config().rate_limit {
        Some(limit) => opts
            .in_flight
            .min(usize::try_from(limit.get().saturating_mul(2)).unwrap_or(usize::MAX)),
        None => opts.in_flight,
    };

    // Room for a few batches' worth of pages: the requests stay in flight while the
    // writer works, and memory stays bounded.
    let (tx, mut rx) = mpsc::channel::<CoreResult<Page>>(PAGES_QUEUED);
    // The fetching runs as its own task, so pages keep arriving while the writer writes
    // the previous ones to SQLite.
    // The longest dateLimit the gateway takes (conventions `maxSpanHours`) bounds how
    // many windows one request may read together.
    let max_span = match client.config().conventions.max_span_hours {
        0 => MAX_SPAN,
        hours => usize::try_from(i64::from(hours) / opts.window_hours.max(1))
            .unwrap_or(1)
            .clamp(1, MAX_SPAN),
    };
    let fetch = tokio::spawn(fetch_all(
        max_span,
        client.clone(),
        target.mer_no,
        opts.page_size,
        in_flight,
        open,
        todo,
        cancel.clone(),
        counts.clone(),
        tx,
    ));

    let writer = async {
        let mut failure: Option<CoreError> = None;
        let mut windows: HashMap<i64, WindowSeen> = HashMap::new();
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
                if rows < BATCH_ROWS && failure.is_none() {
                    // Take what is waiting, and wait a little for more while the batch is
                    // small: fewer, larger transactions rewrite far fewer index pages. A
                    // batch of BATCH_MIN or more is written as soon as nothing more is
                    // waiting, so when pages come slower than they are written the batches
                    // stay short and the pages waiting never fill up (which would stop the
                    // requests in flight). The first orders are written at once, so the
                    // newest show without waiting.
                    let eager = report.progress.orders == 0 && rows > 0;
                    next = match rx.try_recv() {
                        Ok(p) => Some(p),
                        Err(_) if eager || rows >= BATCH_MIN => None,
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
            // A window is complete when the verdict of its reading says it adds up (it
            // comes after its pages), and nothing of it was refused. A page alone only
            // records progress: short of the last, it changes no window's completeness.
            let mut done = Vec::with_capacity(batch.len());
            let mut windows_done = 0;
            for p in &batch {
                let seen = windows.entry(p.window_start).or_default();
                seen.pages += p.pages as i64;
                seen.total_pages = seen.total_pages.max(p.total_pages);
                seen.clean &= p.refused.is_empty();
                let Some(verdict) = &p.verdict else {
                    done.push(PageDone {
                        window_start: p.window_start,
                        window_end: p.window_end,
                        page_num: seen.pages.min(seen.total_pages - 1),
                        total_pages: seen.total_pages,
                        clean: false,
                    });
                    continue;
                };
                if !seen.counted {
                    seen.counted = true;
                    windows_done += 1;
                }
                let open = p.window_end >= settled_ms;
                if let Err(why) = verdict {
                    let window = window_words((ms(p.window_start), ms(p.window_end)));
                    if open {
                        // Never complete, read again by every sync: on a busy day orders
                        // arrive during every read, which is no news to report.
                        tracing::info!(%window, %why, "open window does not add up yet");
                    } else {
                        tracing::warn!(%window, %why, "window left incomplete");
                        report.incomplete(format!("{window}: {why}"));
                    }
                }
                done.push(PageDone {
                    window_start: p.window_start,
                    window_end: p.window_end,
                    page_num: seen.total_pages,
                    total_pages: seen.total_pages,
                    clean: verdict.is_ok() && seen.clean && !open,
                });
            }
            let w = Instant::now();
            let (changed, mut batch) = {
                let target = target.clone();
                tokio::task::spawn_blocking(move || {
                    write_batch(&target, &batch, &done).map(|n| (n, batch))
                })
                .await
                .map_err(|e| CoreError::storage(format!("the cache writer stopped: {e}")))??
            };
            report.write_seconds += w.elapsed().as_secs_f64();
            report.changed += changed as u64;
            for page in &mut batch {
                for why in &page.refused {
                    tracing::warn!(%why, "order not cached");
                }
                report.refuse(std::mem::take(&mut page.refused));
            }
            let p = &mut report.progress;
            p.windows_done += windows_done;
            for page in &batch {
                p.pages += page.pages;
                p.orders += page.items.len() as u64;
            }
            counts.update(p, started);
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
    let fetched = fetch.await;
    report.requests = counts.requests.load(Ordering::Relaxed);
    report.retries = counts.retries.load(Ordering::Relaxed);
    report.windows_reread = counts.rereads.load(Ordering::Relaxed);
    if let Err(e) = written {
        record_error(target, &e);
        return Err(e);
    }
    if cancel.load(Ordering::Relaxed) {
        return Err(CoreError::Cancelled);
    }
    if let Err(e) = fetched {
        // The fetching stopped without saying why (it panicked): not a finished sync.
        let e = CoreError::storage(format!("the sync's reading stopped: {e}"));
        record_error(target, &e);
        return Err(e);
    }
    // Orders still open in windows this run skipped as complete may have moved since.
    report.reread = reread_open(client, target, &skipped, in_flight, &mut report).await?;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Pages waiting for the writer, at most: 32,000 orders of 500 a page, close to a batch
/// (with 160, a loopback sync of 1,000,000 orders peaked at 212 MiB resident, over the
/// 200 MB goal; with 64, 180 MiB and no slower).
const PAGES_QUEUED: usize = 64;

/// What the writer has seen of one window in this run.
#[derive(Debug)]
struct WindowSeen {
    pages: i64,
    total_pages: i64,
    clean: bool,
    counted: bool,
}

impl Default for WindowSeen {
    fn default() -> Self {
        WindowSeen {
            pages: 0,
            total_pages: 1,
            clean: true,
            counted: false,
        }
    }
}

impl Counts {
    /// Fills the rate, the expected total and the time left into `p`.
    fn update(&self, p: &mut SyncProgress, started: Instant) {
        let secs = started.elapsed().as_secs_f64().max(1e-3);
        p.orders_per_second = p.orders as f64 / secs;
        let counted = self.windows_counted.load(Ordering::Relaxed);
        let expected = self.expected.load(Ordering::Relaxed);
        // Windows not counted yet are taken to hold as many as the counted ones, on
        // average.
        let estimate = if counted == 0 {
            None
        } else if counted >= p.windows_total {
            Some(expected)
        } else {
            let per_window = expected as f64 / counted as f64;
            Some(expected + (per_window * (p.windows_total - counted) as f64) as u64)
        };
        p.orders_expected = estimate.map(|e| e.max(p.orders));
        p.requests = self.requests.load(Ordering::Relaxed);
        p.eta_seconds = match estimate {
            _ if p.windows_done >= p.windows_total => Some(0.0),
            Some(e) if p.orders_per_second > 0.0 => {
                Some(e.saturating_sub(p.orders) as f64 / p.orders_per_second)
            }
            _ => None,
        };
    }
}

/// Asks for every page of `todo` (newest first) with at most `in_flight` requests out,
/// and hands each page to the writer; the first failure that asking again does not
/// cure is handed over instead, and ends the fetching.
///
/// Up to [`MAX_SPAN`] adjacent windows are first read together (one request). What one
/// page holds whole is split without asking again for all of it: the newer half is
/// read, and the older half's orders are the span's less the newer half's (an answer
/// that does not fit that, as when an order was added meanwhile, has the older half
/// read too). A span with more than a page is read window by window when it holds half
/// a page a window or more, else split in halves, each read; a span the gateway refuses
/// (a date range it finds too long, a count over the desk's bound) is read window by
/// window. The `open` newest windows (they may still gain orders) are each read on
/// their own, never as part of a span.
///
/// Working the older half out of the newer one takes the gateway's list of a past
/// stretch to be the same from one request to the next, as a list filtered by the
/// orders' dates is. An order the newer half should have listed and did not would be
/// put on the older half's days (the day of any listed order is the desk's reading of
/// which window listed it, so a gateway that lies about windows misplaces orders
/// whatever the desk does).
#[allow(clippy::too_many_arguments)]
async fn fetch_all(
    max_span: usize,
    client: GatewayClient,
    mer_no: u64,
    page_size: i64,
    in_flight: usize,
    open: usize,
    todo: Vec<(DateTime<Utc>, DateTime<Utc>)>,
    cancel: Arc<AtomicBool>,
    counts: Arc<Counts>,
    tx: mpsc::Sender<CoreResult<Page>>,
) {
    let mut queue: BinaryHeap<Reverse<Job>> = BinaryHeap::new();
    let mut i = 0;
    while i < todo.len() {
        let mut span = 1;
        if i >= open {
            while span < max_span
                && i + span < todo.len()
                && adjacent(todo[i + span], todo[i + span - 1])
            {
                span += 1;
            }
        }
        queue.push(Reverse(Job::span(i, span, false, None)));
        i += span;
    }
    // The reads of windows under way (pages found, asked, answered; what they listed),
    // and which window listed each order.
    let mut book = Book::default();
    let words = |w: usize| window_words(todo[w]);
    // Each request is a task of its own, so the signing of requests and the reading of
    // answers use every core; the set aborts what is still out when the fetching ends.
    let mut running = tokio::task::JoinSet::new();
    let ask = |running: &mut tokio::task::JoinSet<_>, job: Job| {
        let (client, cancel, counts) = (client.clone(), cancel.clone(), counts.clone());
        let (from, to) = (todo[job.window + job.span - 1].0, todo[job.window].1);
        running.spawn(async move {
            let answer = read_page(
                &client, mer_no, from, to, job.page, page_size, &cancel, &counts,
            )
            .await;
            (job, answer)
        });
    };
    let mut ready: Vec<Page> = Vec::new();
    loop {
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        while running.len() < in_flight {
            let Some(Reverse(job)) = queue.pop() else {
                break;
            };
            ask(&mut running, job);
        }
        let (job, answer) = match running.join_next().await {
            None => return,
            Some(Ok(done)) => done,
            Some(Err(e)) => {
                let e = CoreError::storage(format!("a page's reading stopped: {e}"));
                let _ = tx.send(Err(e)).await;
                return;
            }
        };
        let page = match answer {
            Ok(page) => page,
            Err(CoreError::Cancelled) => return,
            Err(e @ (CoreError::Rejected { .. } | CoreError::BadResponse { .. }))
                if job.span > 1 =>
            {
                tracing::info!(error = %e, span = job.span, "windows read one by one");
                for w in job.window..job.window + job.span {
                    queue.push(Reverse(Job::span(w, 1, job.counted, None)));
                }
                continue;
            }
            Err(e) => {
                let _ = tx.send(Err(e)).await;
                return;
            }
        };
        if !job.counted && job.page == 1 {
            counts.expected.fetch_add(
                u64::try_from(page.data.total).unwrap_or(0),
                Ordering::Relaxed,
            );
            counts
                .windows_counted
                .fetch_add(job.span as u64, Ordering::Relaxed);
        }
        let verified = page.signature == SignatureStatus::Verified;
        let total = page.data.total;
        let list = page.data.list;
        // One page holds every order the request's windows have.
        let whole = usize::try_from(page.data.total).is_ok_and(|t| t == list.len())
            && page.data.total_page <= 1
            && list.iter().all(|i| !i.trade_no.is_empty());
        if let Some(known) = &job.whole {
            // The older half of a span known whole: what this newer half does not hold,
            // worked out only when the newer half holds nothing. An order the newer
            // half lists could be an older day's that the list put there (a gateway's
            // list that places an order on two days): the older half would then be
            // complete without it, and no later sync would read it again. Otherwise the
            // older half is read on its own, and an order two windows list leaves both
            // incomplete until an honest read places it.
            let older = job.window + job.span;
            let span = known.window + known.span - older;
            match less(&known.items, &list).filter(|_| whole && list.is_empty()) {
                Some(rest) => settle(
                    (older, span),
                    rest,
                    known.verified && verified,
                    &todo,
                    &mut queue,
                    &mut ready,
                ),
                None => queue.push(Reverse(Job::span(older, span, true, None))),
            }
        }
        if job.span > 1 {
            if whole {
                settle(
                    (job.window, job.span),
                    list,
                    verified,
                    &todo,
                    &mut queue,
                    &mut ready,
                );
            } else if total > job.span as i64 * page_size / 2 {
                // Half a page a window or more: each window is read on its own.
                for w in job.window..job.window + job.span {
                    queue.push(Reverse(Job::page(w, 1, 1)));
                }
            } else {
                // More than a page, but few a window: a busy day among quiet ones, found
                // by halves.
                let newer = job.span / 2;
                queue.push(Reverse(Job::span(job.window, newer, true, None)));
                queue.push(Reverse(Job::span(
                    job.window + newer,
                    job.span - newer,
                    true,
                    None,
                )));
            }
        } else {
            let w = job.window;
            let total_pages = page.data.total_page.max(1);
            let tally = book
                .tallies
                .entry(w)
                .or_insert_with(|| Tally::new(job.read));
            let current = tally.read == job.read;
            if current {
                let keys = &book.keys;
                tally.page(
                    total,
                    list.iter()
                        .filter(|i| !i.trade_no.is_empty())
                        .map(|i| (keys.of(&i.trade_no), i.trade_no.as_str())),
                );
                if let Some(why) = tally::over_bound(total, page_size) {
                    tally.refused.get_or_insert(why);
                } else {
                    tally.known = tally.known.max(total_pages);
                    // The rest of the window's pages at once, up to PAGES_AHEAD past this one.
                    let upto = tally.known.min(job.page.saturating_add(PAGES_AHEAD));
                    while tally.asked < upto {
                        tally.asked += 1;
                        queue.push(Reverse(Job::page(w, tally.asked, tally.read)));
                    }
                }
            }
            let mut listed = Page::listed((w, todo[w]), list, verified, total_pages);
            let (_, late) = book.place(w, &mut listed.items, words);
            ready.push(listed);
            for (v, why) in late {
                ready.push(Page::verdict((v, todo[v]), 1, Err(why)));
            }
            if current && book.tallies.get(&w).is_some_and(Tally::finished) {
                let Some(t) = book.tallies.remove(&w) else {
                    continue;
                };
                match t.verdict() {
                    Err(why) if t.refused.is_none() && t.read < READS_PER_WINDOW => {
                        tracing::info!(window = %words(w), %why, "window read again");
                        counts.rereads.fetch_add(1, Ordering::Relaxed);
                        book.tallies.insert(w, Tally::new(t.read + 1));
                        queue.push(Reverse(Job::page(w, 1, t.read + 1)));
                    }
                    verdict => {
                        let verdict = verdict.map_err(|why| match t.read {
                            1 => format!("{why} (read once)"),
                            n => format!("{why} (read {n} times)"),
                        });
                        book.decided(w);
                        ready.push(Page::verdict((w, todo[w]), t.known, verdict));
                    }
                }
            }
        }
        // Orders of windows known whole are placed as they go out: an order another
        // window listed takes both out of being complete.
        let mut out = Vec::with_capacity(ready.len());
        for mut page in ready.drain(..) {
            let w = page.window;
            let over = page.verdict.is_some();
            if matches!(page.verdict, Some(Ok(()))) && !page.items.is_empty() {
                let (mine, late) = book.place(w, &mut page.items, words);
                if let Some(why) = mine {
                    page.verdict = Some(Err(why));
                }
                out.push(page);
                for (v, why) in late {
                    out.push(Page::verdict((v, todo[v]), 1, Err(why)));
                }
            } else {
                out.push(page);
            }
            if over {
                book.decided(w);
            }
        }
        for page in out {
            if tx.send(Ok(page)).await.is_err() {
                return;
            }
        }
    }
}

/// Windows `(window, span)` whose orders are all `items`: with none, each window is
/// complete with an empty page; one window is its page; more are split, the newer half
/// read and the older half worked out from it.
fn settle(
    (window, span): (usize, usize),
    items: Vec<OrderListItem>,
    verified: bool,
    todo: &[(DateTime<Utc>, DateTime<Utc>)],
    queue: &mut BinaryHeap<Reverse<Job>>,
    ready: &mut Vec<Page>,
) {
    if items.is_empty() {
        ready.extend((window..window + span).map(|w| Page::empty((w, todo[w]))));
    } else if span == 1 {
        ready.push(Page {
            verdict: Some(Ok(())),
            ..Page::listed((window, todo[window]), items, verified, 1)
        });
    } else {
        let known = Arc::new(Known {
            window,
            span,
            items,
            verified,
        });
        queue.push(Reverse(Job::span(window, span / 2, true, Some(known))));
    }
}

/// The orders of `whole` that are not in `part`, if every order of `part` is one of
/// `whole`'s (by trade number).
fn less(whole: &[OrderListItem], part: &[OrderListItem]) -> Option<Vec<OrderListItem>> {
    let in_part: HashSet<&str> = part.iter().map(|i| i.trade_no.as_str()).collect();
    let in_whole: HashSet<&str> = whole.iter().map(|i| i.trade_no.as_str()).collect();
    if !in_part.is_subset(&in_whole) || in_part.len() != part.len() {
        return None;
    }
    Some(
        whole
            .iter()
            .filter(|i| !in_part.contains(i.trade_no.as_str()))
            .cloned()
            .collect(),
    )
}

/// Whether window `older` ends right before `newer` starts.
fn adjacent(older: (DateTime<Utc>, DateTime<Utc>), newer: (DateTime<Utc>, DateTime<Utc>)) -> bool {
    older.1 + Duration::seconds(1) == newer.0
}

/// One page of the list for `[from, to]`, checked; a lost answer is asked again up to
/// [`RETRIES`] times.
#[allow(clippy::too_many_arguments)]
async fn read_page(
    client: &GatewayClient,
    mer_no: u64,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    page_num: i64,
    page_size: i64,
    cancel: &AtomicBool,
    counts: &Counts,
) -> CoreResult<Answer<OrderListPage>> {
    let op = V2OrderList {
        mer_no: MerNo(mer_no),
        mer_order_nos: vec![],
        trade_nos: vec![],
        date_limit: Some({
            let zone = client.config().conventions.gateway_zone();
            DateLimit {
                from: fmt(from, zone),
                to: fmt(to, zone),
            }
        }),
        page_num,
        page_size,
        version: V2OrderList::VERSION.into(),
    };
    let mut pause = RETRY_PAUSE;
    let mut attempt = 0;
    loop {
        if cancel.load(Ordering::Relaxed) {
            return Err(CoreError::Cancelled);
        }
        counts.requests.fetch_add(1, Ordering::Relaxed);
        match crate::desk::ask(client, &op).await {
            Ok(a) => {
                crate::answers::order_page(&a.data, page_size)?;
                return Ok(a);
            }
            Err(e) if attempt < RETRIES && worth_retrying(&e) => {
                tracing::info!(error = %e, page_num, "order list page lost; asking again");
                counts.retries.fetch_add(1, Ordering::Relaxed);
                attempt += 1;
                tokio::time::sleep(pause).await;
                pause *= 2;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Writes a batch of pages and their windows' progress in one transaction (on a
/// blocking thread of the runtime, so the fetching goes on meanwhile).
fn write_batch(target: &SyncTarget, batch: &[Page], done: &[PageDone]) -> CoreResult<usize> {
    let rows: Vec<Upsert<'_>> = batch
        .iter()
        .flat_map(|p| {
            p.items.iter().map(move |item| Upsert {
                item,
                created_at: p.window_start,
                verified: p.verified,
                window_end: Some(p.window_end),
            })
        })
        .collect();
    target.store.cache_atomic(|tx| {
        let changed = tx
            .orders
            .upsert_at(target.mer_no, &rows, target.clock.now_ms())?;
        for page in done {
            tx.sync_state.page_done(&target.profile, *page)?;
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

/// The list's page of the orders numbered `chunk` (at most 100).
async fn ask_numbers(
    client: &GatewayClient,
    mer_no: u64,
    chunk: Vec<String>,
) -> (Vec<String>, Result<Answer<OrderListPage>, GatewayError>) {
    let op = V2OrderList {
        mer_no: MerNo(mer_no),
        mer_order_nos: vec![],
        trade_nos: chunk.clone(),
        date_limit: None,
        page_num: 1,
        page_size: 100,
        version: V2OrderList::VERSION.into(),
    };
    let answer = crate::desk::ask(client, &op).await;
    (chunk, answer)
}

/// Re-reads the cached orders that are not final in `ranges` (the windows this run
/// skipped as complete: those it read are fresh), 100 trade numbers a request, up to
/// `in_flight` requests at once.
async fn reread_open(
    client: &GatewayClient,
    target: &SyncTarget,
    ranges: &[(i64, i64)],
    in_flight: usize,
    report: &mut SyncReport,
) -> CoreResult<u64> {
    let mut open = Vec::new();
    for &(from, to) in ranges {
        open.extend(
            target
                .store
                .orders()
                .open_orders(&target.open_states, from, to)?,
        );
    }
    let chunks: Vec<Vec<String>> = open.chunks(100).map(<[String]>::to_vec).collect();
    let asks = chunks
        .into_iter()
        .map(|chunk| ask_numbers(client, target.mer_no, chunk));
    let mut answers = futures_util::stream::iter(asks).buffer_unordered(in_flight);
    let mut n = 0;
    while let Some((chunk, answer)) = answers.next().await {
        let a = answer?;
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
        target.store.orders().upsert_items(
            target.mer_no,
            &items,
            target.clock.now_ms(),
            verified,
        )?;
        n += items.len() as u64;
    }
    target.store.sync_state().clear_error(&target.profile)?;
    Ok(n)
}
