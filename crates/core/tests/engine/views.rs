//! Saved views on a desk's SQLite file (issue 36): relative dates resolved on the day a
//! view is applied, in the business's time zone (month ends, a zone behind and one ahead
//! of UTC, a clock change), never frozen when saved; the view a screen used last back
//! after the desk is opened again; old saved filters kept as orders views.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use paydesk_core::clock::Clock;
use paydesk_core::profile::Reporting;
use paydesk_core::store::orders::OrderFilter;
use paydesk_core::store::prelude::ViewStore;
use paydesk_core::views::{RelativeRange, Screen, ViewColumn, ViewDates, ViewSort, ViewSpec};
use paydesk_core::{CoreError, Desk};
use paydesk_store_sqlite::views::SavedViews;
use paydesk_store_sqlite::{self as db, Durability};

/// A clock set by hand to a moment of the calendar.
#[derive(Debug)]
struct SetClock(AtomicI64);

impl Clock for SetClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// UTC millis of an RFC 3339 moment written out from the calendar.
fn at(text: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(text)
        .unwrap()
        .timestamp_millis()
}

fn in_zone(desk: &Desk, zone: &str) {
    desk.orders()
        .use_reporting(Reporting {
            business_zone: zone.into(),
            ..Reporting::default()
        })
        .unwrap();
}

fn range(desk: &Desk, r: RelativeRange) -> (i64, i64) {
    let p = desk.orders().relative_range(r).unwrap();
    (p.from, p.to)
}

fn relative(r: RelativeRange) -> ViewSpec {
    ViewSpec {
        dates: Some(ViewDates::Relative { range: r }),
        ..ViewSpec::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn relative_dates_follow_the_business_calendar_on_the_day_they_are_applied() {
    let f = common::Fixture::new("views-dates").await;
    let mut desk = f.desk().await;
    let clock = Arc::new(SetClock(AtomicI64::new(0)));
    desk.set_clock(clock.clone());
    use RelativeRange::*;

    // 1 March 2026, 03:00 UTC is still 28 February, 21:00 in Mexico City (UTC-6, no
    // daylight saving since 2022): its "today" is the 28th, its month February.
    clock.0.store(at("2026-03-01T03:00:00Z"), Ordering::Relaxed);
    in_zone(&desk, "America/Mexico_City");
    assert_eq!(
        range(&desk, Today),
        (at("2026-02-28T06:00:00Z"), at("2026-03-01T06:00:00Z"))
    );
    assert_eq!(
        range(&desk, Yesterday),
        (at("2026-02-27T06:00:00Z"), at("2026-02-28T06:00:00Z"))
    );
    assert_eq!(
        range(&desk, Last7Days),
        (at("2026-02-22T06:00:00Z"), at("2026-03-01T06:00:00Z"))
    );
    assert_eq!(
        range(&desk, Last30Days),
        (at("2026-01-30T06:00:00Z"), at("2026-03-01T06:00:00Z"))
    );
    assert_eq!(
        range(&desk, ThisMonth),
        (at("2026-02-01T06:00:00Z"), at("2026-03-01T06:00:00Z"))
    );
    assert_eq!(
        range(&desk, LastMonth),
        (at("2026-01-01T06:00:00Z"), at("2026-02-01T06:00:00Z"))
    );
    // The same moment in UTC is already March.
    in_zone(&desk, "UTC");
    assert_eq!(
        range(&desk, ThisMonth),
        (at("2026-03-01T00:00:00Z"), at("2026-04-01T00:00:00Z"))
    );
    assert_eq!(
        range(&desk, LastMonth),
        (at("2026-02-01T00:00:00Z"), at("2026-03-01T00:00:00Z"))
    );

    // New Year's Eve, 20:00 UTC is 1 January 2027, 04:00 in Shanghai (UTC+8): last
    // month is December 2026, yesterday its 31st.
    clock.0.store(at("2026-12-31T20:00:00Z"), Ordering::Relaxed);
    in_zone(&desk, "Asia/Shanghai");
    assert_eq!(
        range(&desk, ThisMonth),
        (at("2026-12-31T16:00:00Z"), at("2027-01-31T16:00:00Z"))
    );
    assert_eq!(
        range(&desk, LastMonth),
        (at("2026-11-30T16:00:00Z"), at("2026-12-31T16:00:00Z"))
    );
    assert_eq!(
        range(&desk, Yesterday),
        (at("2026-12-30T16:00:00Z"), at("2026-12-31T16:00:00Z"))
    );

    // Berlin moves its clocks on 29 March 2026: the last 7 days on the 31st start at
    // midnight of winter time (+01:00) and end at midnight of summer time (+02:00).
    clock.0.store(at("2026-03-31T10:00:00Z"), Ordering::Relaxed);
    in_zone(&desk, "Europe/Berlin");
    assert_eq!(
        range(&desk, Last7Days),
        (at("2026-03-24T23:00:00Z"), at("2026-03-31T22:00:00Z"))
    );

    // A view saved with "last 7 days" is not frozen: applied the next day, it is the
    // next day's last 7 days (also after the desk is opened again).
    let id = desk
        .orders()
        .save_view(Screen::Orders, "This week", &relative(Last7Days), false)
        .unwrap()
        .id;
    clock.0.store(at("2026-04-01T10:00:00Z"), Ordering::Relaxed);
    let v = desk
        .orders()
        .views(Screen::Orders)
        .unwrap()
        .into_iter()
        .find(|v| v.id == id)
        .unwrap();
    assert_eq!(
        (v.from, v.to),
        (
            Some(at("2026-03-25T23:00:00Z")),
            Some(at("2026-04-01T22:00:00Z"))
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_view_keeps_columns_and_sort_and_the_last_one_comes_back_when_the_desk_reopens() {
    let f = common::Fixture::new("views-last").await;
    let spec = ViewSpec {
        order_filter: Some(OrderFilter {
            currencies: vec!["MXN".into()],
            ..OrderFilter::default()
        }),
        dates: Some(ViewDates::Relative {
            range: RelativeRange::Last30Days,
        }),
        columns: vec![
            ViewColumn {
                id: "tradeNo".into(),
                width: Some(220),
            },
            ViewColumn {
                id: "createdAt".into(),
                width: None,
            },
        ],
        sort: Some(ViewSort {
            key: "amount".into(),
            descending: true,
        }),
        ..ViewSpec::default()
    };
    let id = {
        let desk = f.desk().await;
        assert!(desk.orders().last_view(Screen::Orders).unwrap().is_none());
        let v = desk
            .orders()
            .save_view(Screen::Orders, "  MXN by amount ", &spec, false)
            .unwrap();
        assert_eq!(v.name, "MXN by amount");
        // A single desk has no team to share with; bad names and widths are refused.
        for (name, s, shared, field) in [
            ("x", spec.clone(), true, "shared"),
            ("", spec.clone(), false, "name"),
            (&"x".repeat(61)[..], spec.clone(), false, "name"),
            (
                "wide",
                ViewSpec {
                    columns: vec![ViewColumn {
                        id: "fee".into(),
                        width: Some(5000),
                    }],
                    ..ViewSpec::default()
                },
                false,
                "columns",
            ),
        ] {
            match desk.orders().save_view(Screen::Orders, name, &s, shared) {
                Err(CoreError::Validation { field: got, .. }) => assert_eq!(got, field),
                other => panic!("{name:?} saved: {other:?}"),
            }
        }
        desk.orders()
            .save_view(Screen::Events, "events", &ViewSpec::default(), false)
            .unwrap();
        desk.orders().use_view(Screen::Orders, Some(v.id)).unwrap();
        v.id
    };
    // Opened again (an app restart): the orders screen's view comes back whole.
    let desk = f.desk().await;
    let back = desk.orders().last_view(Screen::Orders).unwrap().unwrap();
    assert_eq!(back.id, id);
    assert_eq!(back.spec, spec);
    assert!(
        back.from.is_some() && back.to.unwrap() - back.from.unwrap() >= 30 * 86_400_000 - 3_600_000
    );
    let events = desk.orders().last_view(Screen::Events).unwrap().unwrap();
    assert_eq!(
        events.name, "events",
        "saving makes a view the screen's current one"
    );
    // A deleted view no longer comes back.
    desk.orders().delete_view(id).unwrap();
    assert!(desk.orders().last_view(Screen::Orders).unwrap().is_none());
    assert!(desk.orders().delete_view(id).is_err());
    // Choosing no view is kept too.
    desk.orders().use_view(Screen::Events, None).unwrap();
    assert!(desk.orders().last_view(Screen::Events).unwrap().is_none());
}

/// Filters saved before views (absolute dates, no columns) become orders views holding
/// the same filter when a desk of this version opens the file.
#[test]
fn old_saved_filters_become_orders_views() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.sqlite");
    let before = db::MIGRATIONS
        .iter()
        .position(|m| m.sql.contains("CREATE TABLE saved_views"))
        .unwrap();
    {
        let conn = db::open_with(&path, Durability::Cache, &db::MIGRATIONS[..before]).unwrap();
        conn.execute(
            "INSERT INTO saved_filters (name, filter, created_at) VALUES
               ('November MXN', '{\"from\":1793491200000,\"to\":1796083200000,\"currencies\":[\"MXN\"],\"sort\":\"amount\",\"descending\":true}', 5),
               ('broken', 'not json', 6)",
            [],
        )
        .unwrap();
    }
    let conn = db::open(&path, Durability::Cache).unwrap();
    let views = SavedViews::on(&conn).list(Screen::Orders).unwrap();
    assert_eq!(views.len(), 1, "the unreadable one is left behind");
    assert_eq!(views[0].name, "November MXN");
    let f = views[0].spec.order_filter.clone().unwrap();
    assert_eq!(
        (f.from, f.to),
        (Some(1_793_491_200_000), Some(1_796_083_200_000))
    );
    assert_eq!(f.currencies, ["MXN"]);
    assert!(f.descending);
    assert!(views[0].spec.dates.is_none() && views[0].spec.columns.is_empty());
}

/// The app keeps its connection open: a saved view is committed at once, seen by
/// another connection to the file (a second desk, sqlite3) before the first closes.
#[test]
fn a_saved_view_is_committed_while_its_connection_stays_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("open.sqlite");
    let conn = db::open(&path, Durability::Cache).unwrap();
    let id = SavedViews::on(&conn)
        .save(Screen::Orders, "kept", "{}", false)
        .unwrap();
    SavedViews::on(&conn)
        .set_last(Screen::Orders, Some(id))
        .unwrap();
    let other = rusqlite::Connection::open(&path).unwrap();
    let names: String = other
        .query_row("SELECT group_concat(name) FROM saved_views", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(names, "kept");
    assert_eq!(
        SavedViews::on(&other).last(Screen::Orders).unwrap(),
        Some(id)
    );
    drop(conn);
}
