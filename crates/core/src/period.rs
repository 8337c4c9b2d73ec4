//! Periods and time zones: a period `[from, to)` in UTC millis, and the zone its days
//! are in (a zone name with daylight saving, or a fixed offset). What a statement, a
//! refresh of a period and a profile's business zone share.

use serde::{Deserialize, Serialize};

use crate::error::{CoreError, CoreResult};

/// A period `[from, to)`, UTC millis: the caller turns its days in its time zone into
/// these bounds.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Period {
    pub from: i64,
    pub to: i64,
}

impl Period {
    pub fn new(from: i64, to: i64) -> CoreResult<Self> {
        if to <= from {
            return Err(CoreError::keyed(
                "to",
                "must be after from",
                "periodOrder",
                &[],
            ));
        }
        Ok(Period { from, to })
    }

    /// The days `first` to `last`, both included, in the time zone `tz` (a statement of
    /// November in Shanghai starts at 2026-11-01 00:00 +08:00; in New York, a day of the
    /// change from summer time is 25 hours long).
    pub fn days(
        first: chrono::NaiveDate,
        last: chrono::NaiveDate,
        tz: impl Into<Zone>,
    ) -> CoreResult<Self> {
        let tz = tz.into();
        // A statement is of days a gateway can have orders on: from 1970 to 9999.
        for (field, day) in [("from", first), ("to", last)] {
            if !(1970..=9999).contains(&chrono::Datelike::year(&day)) {
                return Err(CoreError::keyed(
                    field,
                    format!("must be a day from 1970-01-01 to 9999-12-31, got {day}"),
                    "dayRange",
                    &[("got", day.to_string())],
                ));
            }
        }
        if last < first {
            return Err(CoreError::keyed(
                "to",
                "must not be before from",
                "periodOrder",
                &[],
            ));
        }
        let next = last.succ_opt().ok_or_else(|| {
            CoreError::keyed(
                "to",
                "is past the last day there is",
                "dayRange",
                &[("got", last.to_string())],
            )
        })?;
        match (tz.start_of(first), tz.start_of(next)) {
            (Some(from), Some(to)) => Self::new(from, to),
            _ => Err(CoreError::keyed(
                "from",
                "not a day",
                "dayRange",
                &[("got", first.to_string())],
            )),
        }
    }

    /// The last day of the period in `tz` (the day before its end): the day a reader
    /// takes as "to".
    pub fn last_day(&self, tz: &Zone) -> String {
        tz.day_of(self.to - 1)
    }

    /// The period of the same length just before this one (last month against this,
    /// when the caller gives calendar months it makes [`Period::new`] itself).
    pub fn previous(&self) -> Self {
        Period {
            from: self.from - (self.to - self.from),
            to: self.from,
        }
    }
}

/// The time zone a statement's days are in: a zone name of the time zone database
/// (`Europe/Berlin`, `America/New_York`: daylight saving honoured), or a fixed offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zone {
    Named(chrono_tz::Tz),
    Fixed(chrono::FixedOffset),
}

impl From<chrono::FixedOffset> for Zone {
    fn from(o: chrono::FixedOffset) -> Self {
        Zone::Fixed(o)
    }
}

impl From<chrono_tz::Tz> for Zone {
    fn from(z: chrono_tz::Tz) -> Self {
        Zone::Named(z)
    }
}

impl Zone {
    pub const UTC: Zone = Zone::Named(chrono_tz::UTC);

    /// The offset from UTC at the moment `millis`.
    pub fn offset_at(&self, millis: i64) -> chrono::FixedOffset {
        use chrono::{Offset, TimeZone};
        match self {
            Zone::Fixed(o) => *o,
            Zone::Named(z) => chrono::DateTime::from_timestamp_millis(millis)
                .map(|t| z.offset_from_utc_datetime(&t.naive_utc()).fix())
                .unwrap_or_else(|| chrono::Utc.fix()),
        }
    }

    /// The zone's name (`Europe/Berlin`, or `UTC+08:00` for an offset).
    pub fn name(&self) -> String {
        match self {
            Zone::Named(z) => z.name().to_string(),
            Zone::Fixed(o) => zone_name(*o),
        }
    }

    /// The zone's name with its offset at `millis` (`Europe/Berlin (UTC+01:00)`).
    pub fn name_at(&self, millis: i64) -> String {
        match self {
            Zone::Named(_) => format!("{} ({})", self.name(), zone_name(self.offset_at(millis))),
            Zone::Fixed(_) => self.name(),
        }
    }

    /// The first moment of `day` there, UTC millis (where a day starts in a gap of a
    /// clock change, its first hour that exists).
    pub fn start_of(&self, day: chrono::NaiveDate) -> Option<i64> {
        use chrono::TimeZone;
        let midnight = day.and_hms_opt(0, 0, 0)?;
        match self {
            Zone::Fixed(o) => o
                .from_local_datetime(&midnight)
                .earliest()
                .map(|t| t.timestamp_millis()),
            Zone::Named(z) => (0..=3).find_map(|h| {
                z.from_local_datetime(&(midnight + chrono::Duration::hours(h)))
                    .earliest()
                    .map(|t| t.timestamp_millis())
            }),
        }
    }

    /// The day of the moment `millis` there, YYYY-MM-DD.
    pub fn day_of(&self, millis: i64) -> String {
        self.format(millis, "%Y-%m-%d")
    }

    /// The moment `millis` there as `pattern` (chrono's).
    pub fn format(&self, millis: i64, pattern: &str) -> String {
        chrono::DateTime::from_timestamp_millis(millis)
            .map(|t| {
                t.with_timezone(&self.offset_at(millis))
                    .format(pattern)
                    .to_string()
            })
            .unwrap_or_default()
    }
}

/// A time zone as a statement takes it: a zone name (`Asia/Shanghai`,
/// `America/New_York`), `UTC`, `Z`, or a fixed offset such as `+08:00` (`field` names
/// the argument in the error).
pub fn parse_zone(field: &str, text: &str) -> CoreResult<Zone> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("utc") || t.eq_ignore_ascii_case("z") {
        return Ok(Zone::UTC);
    }
    if let Ok(z) = t.parse::<chrono_tz::Tz>() {
        return Ok(Zone::Named(z));
    }
    let offset = t.strip_prefix("UTC").unwrap_or(t);
    if let Ok(o) = offset.parse::<chrono::FixedOffset>() {
        return Ok(Zone::Fixed(o));
    }
    Err(CoreError::keyed(
        field,
        format!(
            "must be a time zone name such as Europe/Berlin or America/New_York, UTC, or an offset such as +08:00, got {text:?}"
        ),
        "timeZone",
        &[("got", text.to_string())],
    ))
}

/// A fixed offset's name (`UTC+08:00`).
pub fn zone_name(offset: chrono::FixedOffset) -> String {
    let secs = offset.local_minus_utc();
    let sign = if secs < 0 { '-' } else { '+' };
    let secs = secs.abs();
    format!("UTC{sign}{:02}:{:02}", secs / 3600, secs % 3600 / 60)
}
