//! Scheduled reports against the sandbox over loopback: a due schedule writes its
//! statement into its folder with the figures of the orders the test made; a second run
//! of the same period never replaces the first file; a run into a folder that cannot be
//! written is recorded failed and raised for a person; runs missed while nothing ran
//! are caught up and reported.

#![allow(clippy::unwrap_used)]

#[path = "../../core/tests/common/mod.rs"]
mod common;

use std::sync::Arc;

use chrono::TimeZone;
use paydesk_core::profile::Reporting;
use paydesk_core::schedule::{
    Cadence, Every, FileFormat, ReportKind, RunOutcome, ScheduleSpec, Trigger,
};
use rust_decimal::Decimal;

const DAY: i64 = 86_400_000;

fn spec(
    name: &str,
    folder: &std::path::Path,
    report: ReportKind,
    format: FileFormat,
) -> ScheduleSpec {
    ScheduleSpec {
        name: name.into(),
        report,
        format,
        cadence: Cadence {
            every: Every::Day,
            weekday: 1,
            day: 1,
            time: "00:05".into(),
        },
        folder: folder.display().to_string(),
        currency: String::new(),
        refresh: true,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_due_schedule_writes_its_statement_and_failures_and_misses_are_raised() {
    let f = common::Fixture::new("sched").await;
    // The business is in Mexico City: its days, and the schedules' times, are there.
    f.home
        .set_reporting(
            &f.name,
            Reporting {
                business_zone: "America/Mexico_City".into(),
                ..Reporting::default()
            },
        )
        .unwrap();
    let desk = Arc::new(f.desk().await);
    let amounts = ["120.00", "35.50", "8.25"];
    let mut numbers = Vec::new();
    for (i, amount) in amounts.iter().enumerate() {
        let no = format!("SCHED-{i}-{}", fastrand::u32(..));
        let mut form = paydesk_core::forms::PayoutForm::new(
            paydesk_core::forms::PayoutKind::Clabe,
            &no,
            amount,
            "MXN",
        );
        form.clabe = "002010077777777771".into();
        desk.money().payout(&form).await.unwrap();
        numbers.push(no);
    }
    let expected: Decimal = amounts.iter().map(|a| a.parse::<Decimal>().unwrap()).sum();

    // Today in Mexico City, and five past midnight after it: the daily run that covers
    // today.
    let mx: chrono_tz::Tz = "America/Mexico_City".parse().unwrap();
    let now = chrono::Utc::now().timestamp_millis();
    let today = chrono::Utc
        .timestamp_millis_opt(now)
        .unwrap()
        .with_timezone(&mx)
        .date_naive();
    let next = today.succ_opt().unwrap();
    let at = |h, m| {
        mx.from_local_datetime(&next.and_hms_opt(h, m, 0).unwrap())
            .unwrap()
            .timestamp_millis()
    };

    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("finance").join("daily");
    let s = f
        .home
        .add_schedule(
            &f.name,
            spec(
                "Daily statement",
                &folder,
                ReportKind::Statement,
                FileFormat::Csv,
            ),
            now,
        )
        .unwrap();
    let o = f
        .home
        .add_schedule(
            &f.name,
            spec("Orders", &folder, ReportKind::Orders, FileFormat::Xlsx),
            now,
        )
        .unwrap();
    // Nothing is due before its time.
    assert!(
        paydesk_reports::schedule::run_due(&desk, &f.home, at(0, 4), "desk")
            .await
            .unwrap()
            .is_empty()
    );
    let runs = paydesk_reports::schedule::run_due(&desk, &f.home, at(0, 6), "desk")
        .await
        .unwrap();
    assert_eq!(runs.len(), 2, "{runs:?}");
    for r in &runs {
        assert_eq!(r.outcome, RunOutcome::Ok, "{r:?}");
        assert_eq!(r.trigger, Trigger::OnTime);
        assert_eq!(r.first_day, today.format("%Y-%m-%d").to_string());
    }
    let day = today.format("%Y-%m-%d");
    let statement = folder.join(format!("daily-statement-{day}.csv"));
    let orders = folder.join(format!("orders-{day}.xlsx"));
    let by_id = |id| runs.iter().find(|r| r.schedule == id).unwrap();
    assert_eq!(
        by_id(s.id).file.as_deref(),
        Some(statement.to_str().unwrap())
    );
    assert_eq!(by_id(o.id).file.as_deref(), Some(orders.to_str().unwrap()));

    // The statement's payouts are the three the test made, summed here.
    let mut r = csv::ReaderBuilder::new()
        .flexible(true)
        .has_headers(false)
        .from_path(&statement)
        .unwrap();
    let line = r
        .records()
        .map(Result::unwrap)
        .find(|l| l.len() > 6 && &l[0] == "MXN" && &l[1] == "Payouts" && &l[2] == "All")
        .expect("an MXN payouts line");
    assert_eq!(&line[5], "3");
    assert_eq!(line[6].parse::<Decimal>().unwrap(), expected);
    // The orders export is a workbook holding each order.
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&orders).unwrap()).unwrap();
    let mut sheet = String::new();
    std::io::Read::read_to_string(
        &mut zip.by_name("xl/worksheets/sheet1.xml").unwrap(),
        &mut sheet,
    )
    .unwrap();
    for n in &numbers {
        assert!(sheet.contains(n.as_str()), "{n} in the workbook");
    }

    // The same period run again (Run now, later that morning): a file of its own, the
    // first one as it was.
    let first = std::fs::read(&statement).unwrap();
    let again = paydesk_reports::schedule::run_now(&desk, &f.home, s.id, at(9, 0), "desk")
        .await
        .unwrap();
    assert_eq!(again.outcome, RunOutcome::Ok, "{again:?}");
    assert_eq!(again.trigger, Trigger::Manual);
    let second = folder.join(format!("daily-statement-{day}_02.csv"));
    assert_eq!(again.file.as_deref(), Some(second.to_str().unwrap()));
    assert_eq!(std::fs::read(&statement).unwrap(), first);
    assert!(f.home.schedules(&f.name).unwrap().alerts().is_empty());

    // A folder that cannot be written (its parent is a file): failed, with the error,
    // raised for a person; a later good run of the schedule clears it.
    let blocker = dir.path().join("not-a-folder");
    std::fs::write(&blocker, b"x").unwrap();
    let mut bad = spec(
        "Broken",
        &blocker.join("out"),
        ReportKind::Statement,
        FileFormat::Xlsx,
    );
    bad.refresh = false;
    let b = f.home.add_schedule(&f.name, bad.clone(), at(0, 6)).unwrap();
    let failed = paydesk_reports::schedule::run_due(&desk, &f.home, at(0, 6) + DAY, "desk")
        .await
        .unwrap();
    let failed = failed.iter().find(|r| r.schedule == b.id).unwrap();
    assert_eq!(failed.outcome, RunOutcome::Failed);
    assert!(failed.file.is_none());
    let error = failed.error.as_deref().unwrap();
    assert!(error.contains("not-a-folder"), "{error}");
    let alerts = f.home.schedules(&f.name).unwrap().alerts();
    assert!(
        alerts.iter().any(|a| a.failed && a.run.id == failed.id),
        "{alerts:?}"
    );
    bad.folder = dir.path().join("fixed").display().to_string();
    f.home
        .edit_schedule(&f.name, b.id, bad, at(0, 7) + DAY)
        .unwrap();
    let fixed = paydesk_reports::schedule::run_now(&desk, &f.home, b.id, at(0, 8) + DAY, "desk")
        .await
        .unwrap();
    assert_eq!(fixed.outcome, RunOutcome::Ok, "{fixed:?}");
    assert!(std::path::Path::new(fixed.file.as_deref().unwrap()).is_file());
    assert!(
        !f.home
            .schedules(&f.name)
            .unwrap()
            .alerts()
            .iter()
            .any(|a| a.failed)
    );

    // The others removed (their runs leave the attention list with them).
    for id in [s.id, o.id, b.id] {
        f.home.remove_schedule(&f.name, id).unwrap();
    }
    // Closed for three days: the runs due meanwhile are caught up when the desk next
    // runs, each of its own day, and reported missed until someone has seen them.
    let missed_folder = dir.path().join("missed");
    let mut m = spec(
        "Missed",
        &missed_folder,
        ReportKind::Statement,
        FileFormat::Csv,
    );
    m.refresh = false;
    let start = at(1, 0) + DAY;
    let ms = f.home.add_schedule(&f.name, m, start).unwrap();
    let reopened = start + 3 * DAY + 2 * 3_600_000;
    let caught = paydesk_reports::schedule::run_due(&desk, &f.home, reopened, "desk")
        .await
        .unwrap();
    let caught: Vec<_> = caught.into_iter().filter(|r| r.schedule == ms.id).collect();
    assert_eq!(caught.len(), 3, "{caught:?}");
    assert!(
        caught
            .iter()
            .all(|r| r.trigger == Trigger::CatchUp && r.outcome == RunOutcome::Ok)
    );
    let mut files: Vec<String> = std::fs::read_dir(&missed_folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let days: Vec<String> = (2..5)
        .map(|i| {
            format!(
                "missed-{}.csv",
                (today + chrono::Duration::days(i)).format("%Y-%m-%d")
            )
        })
        .collect();
    assert_eq!(files, days);
    let alerts = f.home.schedules(&f.name).unwrap().alerts();
    let missed: Vec<u64> = alerts
        .iter()
        .filter(|a| a.missed)
        .map(|a| a.run.id)
        .collect();
    assert_eq!(missed.len(), 3, "{alerts:?}");
    f.home.acknowledge_runs(&f.name, &missed).unwrap();
    assert!(f.home.schedules(&f.name).unwrap().alerts().is_empty());
}

/// A run that falls due while the operator's sync is reading the list waits for that
/// sync (one at a time on a desk) and then reads its period, rather than fail.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_due_during_a_sync_waits_for_it() {
    let f = common::Fixture::new("sched-sync").await;
    let desk = Arc::new(f.desk().await);
    f.running.sandbox.set_fault(
        "/v2/order/queryOrderList",
        paydesk_sandbox::Fault {
            latency_ms: 150,
            ..paydesk_sandbox::Fault::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let s = f
        .home
        .add_schedule(
            &f.name,
            spec(
                "During sync",
                dir.path(),
                ReportKind::Statement,
                FileFormat::Csv,
            ),
            chrono::Utc::now().timestamp_millis(),
        )
        .unwrap();
    let syncing = desk.clone();
    let sync = tokio::spawn(async move {
        syncing
            .orders()
            .sync(
                &syncing.orders().sync_options(3),
                Arc::new(std::sync::atomic::AtomicBool::new(false)),
                |_| {},
            )
            .await
    });
    let started = std::time::Instant::now();
    while !desk.orders().syncing() && started.elapsed() < std::time::Duration::from_secs(10) {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(desk.orders().syncing(), "the operator's sync runs");
    let now = chrono::Utc::now().timestamp_millis();
    let run = paydesk_reports::schedule::run_now(&desk, &f.home, s.id, now, "desk")
        .await
        .unwrap();
    assert_eq!(run.outcome, RunOutcome::Ok, "{run:?}");
    sync.await.unwrap().unwrap();
    assert!(std::path::Path::new(run.file.as_deref().unwrap()).is_file());
}
