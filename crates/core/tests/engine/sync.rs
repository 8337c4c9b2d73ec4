//! The sync engine against a sandbox on loopback (real HTTP, real SQLite files, the real
//! keyring): windows counted together and split, pages asked at once, lost pages asked
//! again, the newest days first, the profile's rate limit, and the connections reused.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};
use paydesk_core::store::orders::OrderFilter;
use paydesk_core::sync::{SyncOptions, SyncReport};
use paydesk_core::{CoreError, Desk};
use paydesk_sandbox::{Fault, SeedSpec};

const LIST: &str = <paydesk_gateway::wire::V2OrderList as paydesk_gateway::wire::Operation>::PATH;

fn day(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%S").to_string()
}

/// Orders on days of very different density: a busy recent week, a quiet year with a
/// few orders, a busy day long ago, and nothing before it.
fn seed_uneven(f: &common::Fixture) -> usize {
    let now = Utc::now();
    let spans = [
        // (orders, from days ago, to days ago, seed)
        (3_000, 7, 0, 1),
        (40, 300, 8, 2),
        (700, 331, 330, 3),
    ];
    let mut n = 0;
    for (count, from, to, seed) in spans {
        n += f.running.sandbox.seed(&SeedSpec {
            mer_no: Some(common::MER),
            from: Some(day(now - Duration::days(from))),
            to: Some(day(now - Duration::days(to) - Duration::minutes(1))),
            seed,
            ..SeedSpec::new(count)
        });
    }
    n
}

/// Orders by trade number, with their state and UTC day.
type Listed = BTreeMap<String, (i64, String)>;

/// Every order of the gateway with its state and its UTC day, and the same read from
/// the cache (the day a cached order shows is that of the window it was listed in).
fn gateway_and_cache(f: &common::Fixture, desk: &Desk) -> (Listed, Listed) {
    let want = f.running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .map(|o| {
                (
                    o.trade_no.clone(),
                    (o.state, o.created.format("%F").to_string()),
                )
            })
            .collect()
    });
    let mut have = BTreeMap::new();
    desk.orders()
        .for_each_order(&OrderFilter::default(), |o| {
            let shown = DateTime::from_timestamp_millis(o.created_at)
                .unwrap()
                .format("%F")
                .to_string();
            have.insert(o.trade_no.clone(), (o.state, shown));
            Ok(())
        })
        .unwrap();
    (want, have)
}

fn all_time(page_size: i64, in_flight: usize) -> SyncOptions {
    SyncOptions {
        page_size,
        in_flight,
        to: Utc::now() + Duration::hours(1),
        ..SyncOptions::last_days(400)
    }
}

/// Syncs until a run completes (a run stopped by a page lost more often than it is
/// asked again resumes where it stopped); at most `runs` runs.
async fn sync_until_done(desk: &Desk, opts: &SyncOptions, runs: usize) -> SyncReport {
    let mut last = None;
    for _ in 0..runs {
        match desk
            .orders()
            .sync(opts, Arc::new(AtomicBool::new(false)), |_| {})
            .await
        {
            Ok(r) => return r,
            Err(e) => last = Some(e),
        }
    }
    panic!("no sync completed in {runs} runs: {last:?}");
}

/// Sparse and empty stretches are counted together and split, dense days read page by
/// page at once, under random latency with pages lost and failing: the cache then
/// equals the gateway's list, every order on its own day, none twice, none lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn windows_split_and_merged_under_lost_pages_lose_and_double_nothing() {
    let f = common::Fixture::new("uneven").await;
    let seeded = seed_uneven(&f);
    let desk = f.desk().await;
    f.running.sandbox.set_fault(
        LIST,
        Fault {
            latency_ms: 2,
            latency_jitter_ms: 25,
            error_rate: 0.08,
            drop_rate: 0.04,
            seed: 7,
            ..Fault::default()
        },
    );
    let report = sync_until_done(&desk, &all_time(50, 8), 6).await;
    f.running.sandbox.clear_faults();
    let (want, have) = gateway_and_cache(&f, &desk);
    assert_eq!(want.len(), seeded);
    assert_eq!(have.len(), want.len(), "orders lost or doubled");
    assert!(want == have, "the cache differs from the gateway's list");
    assert!(report.progress.orders > 0);

    // Read again whole without faults: the cache is unchanged, and the 401 days cost
    // far fewer requests than a request a day and one a page (the empty and quiet
    // stretches are read together and split by what they hold).
    let again = desk
        .orders()
        .sync(
            &SyncOptions {
                full: true,
                ..all_time(50, 8)
            },
            Arc::new(AtomicBool::new(false)),
            |_| {},
        )
        .await
        .unwrap();
    let (want, have) = gateway_and_cache(&f, &desk);
    assert!(want == have);
    let mut per_day: BTreeMap<String, u64> = BTreeMap::new();
    for (_, d) in want.values() {
        *per_day.entry(d.clone()).or_default() += 1;
    }
    let windows = again.progress.windows_total;
    let daily: u64 = windows
        + per_day
            .values()
            .map(|&n| n.div_ceil(50).saturating_sub(1))
            .sum::<u64>();
    eprintln!(
        "{} requests where a request a day would take {daily}",
        again.requests
    );
    // (At most 80 %: an older half is worked out from its span only when the newer
    // half holds nothing, since an order the newer half lists may be an older day's;
    // otherwise it is read on its own. It was 65 % while every older half was worked
    // out, which the hostile paging fuzz showed can leave a day complete without an
    // order the list put on a later day.)
    assert!(
        again.requests * 100 <= daily * 80,
        "{} requests where a request a day would take {daily}",
        again.requests
    );
    assert_eq!(again.retries, 0);

    // An incremental run finds every past window complete and reads only today's.
    let last = desk
        .orders()
        .sync(&all_time(50, 8), Arc::new(AtomicBool::new(false)), |_| {})
        .await
        .unwrap();
    // (Two when an hour from now is tomorrow, UTC.)
    assert!(last.progress.windows_total <= 2, "{last:?}");
}

/// The newest days are cached first: when the first pages are written, they are the
/// newest window's, so the Orders screen shows today while older days still load.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_newest_days_are_cached_first() {
    let f = common::Fixture::new("newest").await;
    seed_uneven(&f);
    let desk = Arc::new(f.desk().await);
    f.running.sandbox.set_fault(
        LIST,
        Fault {
            latency_ms: 40,
            ..Fault::default()
        },
    );
    let first_written: Arc<Mutex<Option<i64>>> = Arc::default();
    let oldest_at_first = Arc::new(Mutex::new(None));
    let report = {
        let desk2 = desk.clone();
        let first_written = first_written.clone();
        let oldest_at_first = oldest_at_first.clone();
        desk.orders()
            .sync(
                &all_time(100, 4),
                Arc::new(AtomicBool::new(false)),
                move |p| {
                    let mut first = first_written.lock().unwrap();
                    if first.is_none() && p.orders > 0 {
                        *first = Some(p.orders as i64);
                        let mut oldest = i64::MAX;
                        desk2
                            .orders()
                            .for_each_order(&OrderFilter::default(), |o| {
                                oldest = oldest.min(o.created_at);
                                Ok(())
                            })
                            .unwrap();
                        *oldest_at_first.lock().unwrap() = Some(oldest);
                    }
                },
            )
            .await
            .unwrap()
    };
    assert!(report.progress.orders > 0);
    let oldest = oldest_at_first.lock().unwrap().unwrap();
    let age = Utc::now() - DateTime::from_timestamp_millis(oldest).unwrap();
    assert!(
        age < Duration::days(8),
        "the first orders written are {} days old",
        age.num_days()
    );
    // The estimate of what is left was given and came true.
    assert_eq!(
        report.progress.orders_expected,
        Some(report.progress.orders)
    );
}

/// Cancelled under latency in the middle of dense windows read page by page at once,
/// then resumed: nothing lost, nothing doubled, and no window whose pages were not
/// all written is taken as complete.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_cancelled_midway_resumes_without_loss() {
    let f = common::Fixture::new("cancel").await;
    f.running.sandbox.seed(&SeedSpec {
        mer_no: Some(common::MER),
        from: Some(day(Utc::now() - Duration::days(5))),
        to: Some(day(Utc::now() - Duration::minutes(1))),
        ..SeedSpec::new(6_000)
    });
    let desk = Arc::new(f.desk().await);
    f.running.sandbox.set_fault(
        LIST,
        Fault {
            latency_ms: 5,
            latency_jitter_ms: 40,
            seed: 3,
            ..Fault::default()
        },
    );
    for _ in 0..3 {
        let cancel = Arc::new(AtomicBool::new(false));
        let run = {
            let (desk, cancel) = (desk.clone(), cancel.clone());
            tokio::spawn(async move {
                let stop = cancel.clone();
                desk.orders()
                    .sync(&all_time(20, 8), cancel, move |p| {
                        if p.orders >= 1_000 {
                            stop.store(true, Ordering::Relaxed);
                        }
                    })
                    .await
            })
        };
        let r = run.await.unwrap();
        assert!(matches!(r, Err(CoreError::Cancelled) | Ok(_)), "{r:?}");
    }
    sync_until_done(&desk, &all_time(20, 8), 1).await;
    let (want, have) = gateway_and_cache(&f, &desk);
    assert_eq!(have.len(), 6_000);
    assert!(want == have);
}

/// The profile's rate limit holds for the whole sync, counted where it counts: at the
/// gateway, in every second; and it is used, not undercut by much. The connections are
/// kept alive: a few, not one per request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rate_limit_is_never_exceeded_and_connections_are_reused() {
    const LIMIT: u32 = 25;
    let f = common::Fixture::new("paced").await;
    f.running.sandbox.seed(&SeedSpec {
        mer_no: Some(common::MER),
        from: Some(day(Utc::now() - Duration::days(3))),
        to: Some(day(Utc::now() - Duration::minutes(1))),
        ..SeedSpec::new(4_000)
    });
    let p = f.home.get(&f.name).unwrap();
    f.home
        .put(paydesk_core::Profile {
            sync: paydesk_core::profile::SyncSettings {
                rate_limit: LIMIT,
                ..p.sync.clone()
            },
            ..p
        })
        .unwrap();
    let desk = f.desk().await;
    f.running.sandbox.reset_traffic();
    // Pages of 50 over 4 days: about 85 requests, 8 in flight, at most 25 a second.
    let started = std::time::Instant::now();
    let report = desk
        .orders()
        .sync(&all_time(50, 8), Arc::new(AtomicBool::new(false)), |_| {})
        .await
        .unwrap();
    let secs = started.elapsed().as_secs_f64();
    let traffic = f.running.sandbox.traffic();
    assert_eq!(report.progress.orders, 4_000);
    assert!(traffic.requests >= 80, "{traffic:?}");
    assert!(
        traffic.max_per_second <= u64::from(LIMIT),
        "{} requests arrived within one second; the limit is {LIMIT}",
        traffic.max_per_second
    );
    // Kept to, not far under: the run took about as long as the limit makes it.
    let least = (traffic.requests - 1) as f64 / f64::from(LIMIT);
    assert!(
        secs >= least,
        "{secs:.2} s for {} requests",
        traffic.requests
    );
    assert!(
        secs < least * 1.5 + 1.0,
        "{secs:.2} s for {} requests",
        traffic.requests
    );
    assert!(
        traffic.connections <= 12,
        "{} connections for {} requests: keep-alive was not reused",
        traffic.connections,
        traffic.requests
    );
}
