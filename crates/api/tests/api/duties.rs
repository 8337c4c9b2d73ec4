//! The background duties both front ends schedule (`paydesk_api::duties`), against a
//! sandbox on loopback with the real keyring and SQLite files: what is due follows the
//! desk's clock (a test clock moved forward here, never a sleep), the balance snapshot's
//! own time included, and the worker's loop runs both duties.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use paydesk_api::duties::{self, By};
use paydesk_core::clock::{Clock, ShiftedClock};
use paydesk_core::forms::{PayoutForm, PayoutKind};
use paydesk_core::profile::Reporting;
use paydesk_core::schedule::{
    Cadence, Every, FileFormat, ReportKind, RunOutcome, ScheduleSpec, Trigger,
};
use paydesk_sandbox::SeedSpec;

const MIN: Duration = Duration::from_secs(60);

/// A daily statement at the minute `at_ms` falls in (UTC), written to `folder`.
fn daily(folder: &std::path::Path, at_ms: i64) -> ScheduleSpec {
    let at = chrono::DateTime::from_timestamp_millis(at_ms).unwrap();
    ScheduleSpec {
        name: "daily".into(),
        report: ReportKind::Statement,
        format: FileFormat::Csv,
        cadence: Cadence {
            every: Every::Day,
            weekday: 1,
            day: 1,
            time: at.format("%H:%M").to_string(),
        },
        folder: folder.display().to_string(),
        currency: String::new(),
        refresh: false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duties_are_due_by_the_desk_s_clock() {
    let f = common::Fixture::new("duties").await;
    f.running.sandbox.seed(&SeedSpec {
        mer_no: Some(common::MER),
        ..SeedSpec::new(40)
    });
    f.home
        .set_reporting(
            &f.name,
            Reporting {
                business_zone: "UTC".into(),
                ..Reporting::default()
            },
        )
        .unwrap();
    let clock = Arc::new(ShiftedClock::default());
    let mut desk = f.desk().await;
    desk.set_clock(clock.clone());
    let desk = Arc::new(desk);
    desk.orders()
        .sync(
            &desk.orders().sync_options(90),
            Arc::new(AtomicBool::new(false)),
            |_| {},
        )
        .await
        .unwrap();
    let currencies = desk.money().currencies().unwrap();
    assert!(!currencies.is_empty());

    // The balance snapshot: due at once (none kept yet), then every 60 minutes (the
    // profile's default) by the desk's clock.
    assert_eq!(
        duties::snapshot_if_due(&desk).await.unwrap(),
        Some(currencies.len())
    );
    assert_eq!(duties::snapshot_if_due(&desk).await.unwrap(), None);
    clock.advance(61 * MIN);
    let ahead = clock.now_ms();
    assert_eq!(
        duties::snapshot_if_due(&desk).await.unwrap(),
        Some(currencies.len()),
        "61 minutes later by the desk's clock: due"
    );
    // The snapshot is kept at the desk's time, not the system's...
    let last = desk.money().balance_history(&currencies[0]).unwrap();
    assert_eq!(last.len(), 2);
    assert!(last[1].taken_at >= ahead, "{} < {ahead}", last[1].taken_at);
    // ...so 30 minutes on (91 past the system's time) the next one is not due yet.
    clock.advance(30 * MIN);
    assert_eq!(duties::snapshot_if_due(&desk).await.unwrap(), None);

    // A report due 10 minutes from the desk's now: not before, on time after, once.
    let folder = tempfile::tempdir().unwrap();
    let now = clock.now_ms();
    f.home
        .add_schedule(&f.name, daily(folder.path(), now + 10 * 60_000), now)
        .unwrap();
    assert!(
        duties::reports_if_due(&desk, &f.home, By::Desk)
            .await
            .unwrap()
            .is_empty()
    );
    clock.advance(11 * MIN);
    let runs = duties::reports_if_due(&desk, &f.home, By::Desk)
        .await
        .unwrap();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0].outcome, RunOutcome::Ok, "{runs:?}");
    assert_eq!(runs[0].trigger, Trigger::OnTime);
    assert_eq!(runs[0].by, "desk");
    let file = std::path::Path::new(runs[0].file.as_deref().unwrap());
    assert!(file.starts_with(folder.path()) && file.exists(), "{file:?}");
    assert!(
        duties::reports_if_due(&desk, &f.home, By::Desk)
            .await
            .unwrap()
            .is_empty(),
        "run once"
    );

    // The worker's loop: the next day's report and a snapshot (61 minutes since the
    // last) at its first round, said to its listener.
    clock.advance(24 * 60 * MIN);
    let heard = Arc::new(std::sync::Mutex::new(Vec::new()));
    let h = heard.clone();
    let before = desk.money().balance_history(&currencies[0]).unwrap().len();
    let task = duties::keep_running(
        &desk,
        f.home.clone(),
        By::Worker,
        Duration::from_secs(3600),
        move |run| h.lock().unwrap().push(run.clone()),
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while heard.lock().unwrap().is_empty()
        || desk.money().balance_history(&currencies[0]).unwrap().len() == before
    {
        assert!(Instant::now() < deadline, "the worker's round did not run");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    task.abort();
    let heard = heard.lock().unwrap().clone();
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(heard[0].by, "worker");
    assert_eq!(heard[0].outcome, RunOutcome::Ok, "{heard:?}");

    // The journal keeps a payout's times by the same clock (a day and more ahead).
    let mut form = PayoutForm::new(PayoutKind::Clabe, "DUTIES-1", "5.00", "MXN");
    form.clabe = "002010077777777771".into();
    let sent_after = clock.now_ms();
    let r = desk.money().payout(&form).await.unwrap();
    assert!(r.entry.created_at >= sent_after, "{:?}", r.entry);
    assert!(r.entry.updated_at >= sent_after, "{:?}", r.entry);
}
