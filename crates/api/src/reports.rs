//! Report periods and zones, read one way for the app and the CLI: a day is
//! `YYYY-MM-DD` (spaces around it ignored); a zone is a name (daylight saving is the
//! engine's: `Europe/Berlin`), `UTC` or an offset, and none given is the profile's
//! business zone; a period left open ends today in that zone and lasts 7 days.

use paydesk_core::CoreError;
use paydesk_core::CoreResult;
use paydesk_core::period::{Period, Zone, parse_zone};
use paydesk_core::profile::Reporting;

/// How many days a period with no first day lasts (its last included).
pub const DEFAULT_DAYS: i64 = 7;

/// The zone named (`field` names the argument in an error), else the profile's
/// business zone when the name is empty or not given.
pub fn zone(field: &str, named: Option<&str>, reporting: &Reporting) -> CoreResult<Zone> {
    match named.map(str::trim).filter(|n| !n.is_empty()) {
        Some(n) => parse_zone(field, n),
        None => Ok(reporting.zone()),
    }
}

/// A day as `YYYY-MM-DD`.
pub fn day(field: &str, text: &str) -> CoreResult<chrono::NaiveDate> {
    chrono::NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d").map_err(|_| {
        CoreError::validation(field, format!("must be a day as YYYY-MM-DD, got {text:?}"))
    })
}

/// The days `from` to `to` (both included) in `zone`.
pub fn days(from: &str, to: &str, zone: Zone) -> CoreResult<Period> {
    Period::days(day("from", from)?, day("to", to)?, zone)
}

/// The days `from` to `to` in `zone`, either left open (`None` or empty): the last day
/// is then today there (at `now_ms`), the first the [`DEFAULT_DAYS`]th day before
/// it, counting the last.
pub fn period(from: Option<&str>, to: Option<&str>, zone: Zone, now_ms: i64) -> CoreResult<Period> {
    fn given(t: Option<&str>) -> Option<&str> {
        t.map(str::trim).filter(|t| !t.is_empty())
    }
    let last = match given(to) {
        Some(t) => day("to", t)?,
        None => day("to", &zone.day_of(now_ms))?,
    };
    let first = match given(from) {
        Some(f) => day("from", f)?,
        None => last - chrono::Duration::days(DEFAULT_DAYS - 1),
    };
    Period::days(first, last, zone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_period_is_the_seven_days_ending_today_in_its_zone() {
        // 2026-03-29 23:30 UTC is already the 30th in Berlin (summer time, +02:00).
        let now = chrono::DateTime::parse_from_rfc3339("2026-03-29T23:30:00Z")
            .map(|t| t.timestamp_millis())
            .unwrap_or_default();
        let berlin = parse_zone("tz", "Europe/Berlin").unwrap_or(Zone::UTC);
        let p = period(None, Some(" "), berlin, now).unwrap_or_else(|e| panic!("{e}"));
        let first = chrono::NaiveDate::from_ymd_opt(2026, 3, 24).unwrap_or_default();
        assert_eq!(Some(p.from), berlin.start_of(first));
        let utc = period(None, None, Zone::UTC, now).unwrap_or_else(|e| panic!("{e}"));
        let first_utc = chrono::NaiveDate::from_ymd_opt(2026, 3, 23).unwrap_or_default();
        assert_eq!(Some(utc.from), Zone::UTC.start_of(first_utc));
    }

    #[test]
    fn a_day_not_as_yyyy_mm_dd_names_its_field() {
        let e = days("2026-01-01", "1/2/2026", Zone::UTC).unwrap_err();
        assert!(e.to_string().contains("to"), "{e}");
        assert!(e.to_string().contains("YYYY-MM-DD"), "{e}");
        let reporting = Reporting::default();
        assert!(zone("tz", Some("Mars/Olympus"), &reporting).is_err());
        assert_eq!(
            zone("tz", Some(""), &reporting).ok(),
            Some(reporting.zone())
        );
    }
}
