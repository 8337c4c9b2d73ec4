//! The calendar's answers, each checked against the calendar (the moments worked out
//! by hand from the zones' rules: Berlin's summer time from the last Sunday of March to
//! the last Sunday of October, Mexico City's until its abolition after October 2022).

use super::*;
use crate::Home;

fn utc(text: &str) -> i64 {
    chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M")
        .unwrap()
        .and_utc()
        .timestamp_millis()
}

fn zone(name: &str) -> Zone {
    crate::period::parse_zone("zone", name).unwrap()
}

fn daily(time: &str) -> Cadence {
    Cadence {
        every: Every::Day,
        weekday: 1,
        day: 1,
        time: time.into(),
    }
}

fn day(text: &str) -> NaiveDate {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
}

/// The next `n` runs after `t`.
fn runs(c: &Cadence, z: &Zone, mut t: i64, n: usize) -> Vec<i64> {
    let mut out = Vec::new();
    for _ in 0..n {
        t = next_run_after(c, z, t).unwrap();
        out.push(t);
    }
    out
}

#[test]
fn a_daily_0230_in_berlin_runs_once_a_day_across_both_clock_changes() {
    let berlin = zone("Europe/Berlin");
    let c = daily("02:30");
    // Spring: 02:30 does not exist on 29 March 2026 (02:00 CET becomes 03:00 CEST): it
    // runs at 03:30 CEST, 01:30 UTC. The day before, 02:30 CET; the day after, CEST.
    assert_eq!(
        runs(&c, &berlin, utc("2026-03-27 12:00"), 3),
        [
            utc("2026-03-28 01:30"),
            utc("2026-03-29 01:30"),
            utc("2026-03-30 00:30")
        ]
    );
    // Autumn: 02:30 happens twice on 25 October 2026 (03:00 CEST falls back to 02:00
    // CET): it runs once, at the first (CEST, 00:30 UTC).
    assert_eq!(
        runs(&c, &berlin, utc("2026-10-23 12:00"), 3),
        [
            utc("2026-10-24 00:30"),
            utc("2026-10-25 00:30"),
            utc("2026-10-26 01:30")
        ]
    );
    assert_eq!(
        due_between(
            &c,
            &berlin,
            utc("2026-10-23 12:00"),
            utc("2026-10-27 00:00"),
            100
        )
        .unwrap(),
        [
            utc("2026-10-24 00:30"),
            utc("2026-10-25 00:30"),
            utc("2026-10-26 01:30")
        ]
    );
    // Right after the first 02:30 of that night, the next is the next day's, not the
    // second 02:30.
    assert_eq!(
        next_run_after(&c, &berlin, utc("2026-10-25 00:30")).unwrap(),
        utc("2026-10-26 01:30")
    );
}

#[test]
fn a_daily_0230_in_mexico_city_follows_its_last_summer_time_and_none_after() {
    let mx = zone("America/Mexico_City");
    let c = daily("02:30");
    // 3 April 2022: 02:00 CST became 03:00 CDT; 02:30 runs at 03:30 CDT (08:30 UTC).
    assert_eq!(
        runs(&c, &mx, utc("2022-04-01 12:00"), 3),
        [
            utc("2022-04-02 08:30"),
            utc("2022-04-03 08:30"),
            utc("2022-04-04 07:30")
        ]
    );
    // 30 October 2022: 02:00 CDT fell back to 01:00 CST; 02:30 came once, in CST.
    assert_eq!(
        runs(&c, &mx, utc("2022-10-28 12:00"), 3),
        [
            utc("2022-10-29 07:30"),
            utc("2022-10-30 08:30"),
            utc("2022-10-31 08:30")
        ]
    );
    // Summer time was abolished: April 2023 stays at UTC-6.
    assert_eq!(
        runs(&c, &mx, utc("2023-04-01 12:00"), 2),
        [utc("2023-04-02 08:30"), utc("2023-04-03 08:30")]
    );
}

#[test]
fn monthly_on_the_31st_runs_on_the_last_day_of_a_shorter_month() {
    let c = Cadence {
        every: Every::Month,
        weekday: 1,
        day: 31,
        time: "06:00".into(),
    };
    let z = Zone::UTC;
    assert_eq!(
        runs(&c, &z, utc("2026-01-31 07:00"), 6),
        [
            utc("2026-02-28 06:00"),
            utc("2026-03-31 06:00"),
            utc("2026-04-30 06:00"),
            utc("2026-05-31 06:00"),
            utc("2026-06-30 06:00"),
            utc("2026-07-31 06:00"),
        ]
    );
    // A leap year's February has its 29th.
    assert_eq!(
        next_run_after(&c, &z, utc("2028-02-01 00:00")).unwrap(),
        utc("2028-02-29 06:00")
    );
    // The run on 30 April covers March; the one on 31 March, February.
    assert_eq!(
        period_of(&c, &z, utc("2026-04-30 06:00")),
        (day("2026-03-01"), day("2026-03-31"))
    );
    assert_eq!(
        period_of(&c, &z, utc("2026-03-31 06:00")),
        (day("2026-02-01"), day("2026-02-28"))
    );
}

#[test]
fn weekly_runs_on_its_weekday_in_the_zone_and_covers_the_seven_days_before() {
    // Monday 09:00 in Shanghai is 01:00 UTC Monday; 30 November 2026 is a Monday.
    let c = Cadence {
        every: Every::Week,
        weekday: 1,
        day: 1,
        time: "09:00".into(),
    };
    let sh = zone("Asia/Shanghai");
    let at = next_run_after(&c, &sh, utc("2026-11-24 00:00")).unwrap();
    assert_eq!(at, utc("2026-11-30 01:00"));
    assert_eq!(
        period_of(&c, &sh, at),
        (day("2026-11-23"), day("2026-11-29"))
    );
    // 07:30 on Monday in Los Angeles is Monday 15:30 UTC (PST, UTC-8 in December).
    let la = zone("America/Los_Angeles");
    let c = Cadence {
        time: "07:30".into(),
        ..c
    };
    assert_eq!(
        next_run_after(&c, &la, utc("2026-12-01 00:00")).unwrap(),
        utc("2026-12-07 15:30")
    );
}

#[test]
fn a_daily_run_covers_the_day_before_in_the_zone_and_a_fixed_offset_is_kept() {
    let z = zone("+08:00");
    let c = daily("00:15");
    // 00:15 on 27 November at +08:00 is 16:15 UTC on the 26th; it covers the 26th there.
    let at = next_run_after(&c, &z, utc("2026-11-26 12:00")).unwrap();
    assert_eq!(at, utc("2026-11-26 16:15"));
    assert_eq!(
        period_of(&c, &z, at),
        (day("2026-11-26"), day("2026-11-26"))
    );
}

#[test]
fn the_runs_missed_between_two_moments_are_each_due_one_and_the_newest_are_kept() {
    let c = daily("06:00");
    let z = Zone::UTC;
    // Closed from Friday 18:00 to Monday 08:00: Saturday's, Sunday's and Monday's.
    let missed = due_between(&c, &z, utc("2026-11-20 18:00"), utc("2026-11-23 08:00"), 10).unwrap();
    assert_eq!(
        missed,
        [
            utc("2026-11-21 06:00"),
            utc("2026-11-22 06:00"),
            utc("2026-11-23 06:00")
        ]
    );
    let newest = due_between(&c, &z, utc("2026-11-20 18:00"), utc("2026-11-23 08:00"), 2).unwrap();
    assert_eq!(newest, [utc("2026-11-22 06:00"), utc("2026-11-23 06:00")]);
    // The bounds: a run at t0 was taken already, one at t1 is due.
    assert_eq!(
        due_between(&c, &z, utc("2026-11-21 06:00"), utc("2026-11-22 06:00"), 10).unwrap(),
        [utc("2026-11-22 06:00")]
    );
    assert!(
        due_between(&c, &z, utc("2026-11-22 06:00"), utc("2026-11-22 06:00"), 10)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn bad_schedules_are_refused_naming_the_field() {
    let field = |r: CoreResult<()>| match r.unwrap_err() {
        CoreError::Validation { field, .. } => field,
        e => panic!("{e}"),
    };
    assert_eq!(field(daily("25:00").validate()), "time");
    assert_eq!(field(daily("7").validate()), "time");
    let mut c = daily("07:00");
    c.every = Every::Month;
    c.day = 32;
    assert_eq!(field(c.validate()), "day");
    c.every = Every::Week;
    c.weekday = 0;
    assert_eq!(field(c.validate()), "weekday");
    let spec = ScheduleSpec {
        name: "Daily statement".into(),
        report: ReportKind::Orders,
        format: FileFormat::Pdf,
        cadence: daily("07:00"),
        folder: "/srv/finance".into(),
        currency: String::new(),
        refresh: true,
    };
    assert_eq!(field(spec.validate()), "format");
    let relative = ScheduleSpec {
        format: FileFormat::Csv,
        folder: "finance".into(),
        ..spec.clone()
    };
    assert_eq!(field(relative.validate()), "folder");
    let nameless = ScheduleSpec {
        format: FileFormat::Csv,
        name: "  ".into(),
        ..spec
    };
    assert_eq!(field(nameless.validate()), "name");
}

#[test]
fn file_names_sort_by_period_and_a_second_run_gets_its_own() {
    let mut spec = ScheduleSpec {
        name: "Daily statement (MXN)".into(),
        report: ReportKind::Statement,
        format: FileFormat::Xlsx,
        cadence: daily("07:00"),
        folder: "/srv/finance".into(),
        currency: "MXN".into(),
        refresh: true,
    };
    let a = spec.file_name(day("2026-11-26"), day("2026-11-26"), 1);
    let b = spec.file_name(day("2026-11-26"), day("2026-11-26"), 2);
    let c = spec.file_name(day("2026-11-27"), day("2026-11-27"), 1);
    assert_eq!(a, "daily-statement-mxn-2026-11-26.xlsx");
    assert_eq!(b, "daily-statement-mxn-2026-11-26_02.xlsx");
    let mut sorted = vec![c.clone(), b.clone(), a.clone()];
    sorted.sort();
    assert_eq!(sorted, [a, b, c]);
    spec.cadence.every = Every::Month;
    assert_eq!(
        spec.file_name(day("2026-10-01"), day("2026-10-31"), 1),
        "daily-statement-mxn-2026-10.xlsx"
    );
    spec.cadence.every = Every::Week;
    assert_eq!(
        spec.file_name(day("2026-11-16"), day("2026-11-22"), 1),
        "daily-statement-mxn-2026-11-16_2026-11-22.xlsx"
    );
}

#[test]
fn claims_take_each_due_run_once_and_catch_up_the_newest_missed() {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::at(dir.path());
    let spec = ScheduleSpec {
        name: "Daily".into(),
        report: ReportKind::Statement,
        format: FileFormat::Csv,
        cadence: daily("06:00"),
        folder: dir.path().display().to_string(),
        currency: String::new(),
        refresh: false,
    };
    let z = Zone::UTC;
    let s = home
        .add_schedule("p", spec, utc("2026-11-01 12:00"))
        .unwrap();
    // On time (a minute late): one run, of the day before.
    let c = home
        .claim_due("p", &z, utc("2026-11-02 06:01"), "desk")
        .unwrap();
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].run.trigger, Trigger::OnTime);
    assert_eq!(
        (c[0].run.first_day.as_str(), c[0].run.last_day.as_str()),
        ("2026-11-01", "2026-11-01")
    );
    // Taken: a second claimer (another process, a second tick) finds nothing.
    assert!(
        home.claim_due("p", &z, utc("2026-11-02 06:02"), "cli")
            .unwrap()
            .is_empty()
    );
    // Ten days closed: the newest seven are caught up, the three before recorded missed.
    let c = home
        .claim_due("p", &z, utc("2026-11-12 09:00"), "desk")
        .unwrap();
    assert_eq!(c.len(), CATCH_UP_MAX);
    assert!(c.iter().all(|c| c.run.trigger == Trigger::CatchUp));
    assert_eq!(c.last().unwrap().run.first_day, "2026-11-11");
    let book = home.schedules("p").unwrap();
    let missed: Vec<&str> = book
        .runs
        .iter()
        .filter(|r| r.outcome == RunOutcome::Missed)
        .map(|r| r.first_day.as_str())
        .collect();
    assert_eq!(missed, ["2026-11-02", "2026-11-03", "2026-11-04"]);
    // Paused, nothing falls due; resumed, it runs from then on.
    home.pause_schedule("p", s.id, true, utc("2026-11-12 10:00"))
        .unwrap();
    assert!(
        home.claim_due("p", &z, utc("2026-11-15 10:00"), "desk")
            .unwrap()
            .is_empty()
    );
    home.pause_schedule("p", s.id, false, utc("2026-11-15 10:00"))
        .unwrap();
    assert!(
        home.claim_due("p", &z, utc("2026-11-15 11:00"), "desk")
            .unwrap()
            .is_empty()
    );
    let left = home
        .claim_due("p", &z, utc("2026-11-16 06:00"), "desk")
        .unwrap();
    assert_eq!(left.len(), 1);
    // Never finished (the desk stopped during it): failed at the next look hours later,
    // and raised.
    home.claim_due("p", &z, utc("2026-11-16 13:00"), "desk")
        .unwrap();
    let book = home.schedules("p").unwrap();
    let r = book.runs.iter().find(|r| r.id == left[0].run.id).unwrap();
    assert_eq!(r.outcome, RunOutcome::Failed);
    assert!(book.alerts().iter().any(|a| a.failed && a.run.id == r.id));
}

#[test]
fn a_removed_profile_takes_its_schedules_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::at(dir.path());
    let spec = ScheduleSpec {
        name: "Daily".into(),
        report: ReportKind::Orders,
        format: FileFormat::Csv,
        cadence: daily("06:00"),
        folder: dir.path().display().to_string(),
        currency: String::new(),
        refresh: false,
    };
    home.add_schedule("p", spec, utc("2026-11-01 12:00"))
        .unwrap();
    assert_eq!(home.schedules("p").unwrap().schedules.len(), 1);
    home.remove("p").unwrap();
    assert!(home.schedules("p").unwrap().schedules.is_empty());
}
