//! Saved views' rules (issue 36): a relative date range resolved in the business's time
//! zone on the day it is applied, and what a view may hold (name, size, columns).

use chrono::{Datelike, NaiveDate};

pub use paydesk_model::views::{
    RelativeRange, Screen, StoredView, ViewColumn, ViewDates, ViewSort, ViewSpec, read_spec,
};

use crate::error::{CoreError, CoreResult};
use crate::period::{Period, Zone};

/// The day the moment `now` (UTC millis) falls on in `zone`.
pub fn day_in(zone: &Zone, now: i64) -> NaiveDate {
    chrono::DateTime::from_timestamp_millis(now)
        .map(|t| t.with_timezone(&zone.offset_at(now)).date_naive())
        .unwrap_or_default()
}

/// The days `first` to `last` (both included) of `zone` as a period.
fn days(zone: &Zone, first: NaiveDate, last: NaiveDate) -> CoreResult<Period> {
    Period::days(first, last, *zone)
}

fn first_of_month(d: NaiveDate) -> NaiveDate {
    d.with_day(1).unwrap_or(d)
}

/// `range` as UTC millis `[from, to)` on the day `now` falls on in the business's
/// `zone`: "today" in Mexico City at 01:00 UTC is the day before UTC's.
pub fn resolve(range: RelativeRange, now: i64, zone: &Zone) -> CoreResult<Period> {
    let today = day_in(zone, now);
    let back = |n: u64| {
        today
            .checked_sub_days(chrono::Days::new(n))
            .ok_or_else(|| CoreError::validation("dates", "before the first day there is"))
    };
    match range {
        RelativeRange::Today => days(zone, today, today),
        RelativeRange::Yesterday => {
            let y = back(1)?;
            days(zone, y, y)
        }
        RelativeRange::Last7Days => days(zone, back(6)?, today),
        RelativeRange::Last30Days => days(zone, back(29)?, today),
        RelativeRange::ThisMonth => {
            let first = first_of_month(today);
            let last = first
                .checked_add_months(chrono::Months::new(1))
                .and_then(|n| n.pred_opt())
                .ok_or_else(|| CoreError::validation("dates", "past the last day there is"))?;
            days(zone, first, last)
        }
        RelativeRange::LastMonth => {
            let this = first_of_month(today);
            let last = this
                .pred_opt()
                .ok_or_else(|| CoreError::validation("dates", "before the first day there is"))?;
            days(zone, first_of_month(last), last)
        }
    }
}

/// Checks what a view is saved with: a name of 1 to 60 characters (trimmed, returned),
/// at most 40 columns, each named and 40 to 1,000 pixels wide, and a spec of at most
/// 16 KB.
pub fn checked_name(name: &str) -> CoreResult<String> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > paydesk_model::views::NAME_MAX {
        return Err(CoreError::keyed(
            "name",
            "must be 1 to 60 characters",
            "viewNameLength",
            &[],
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(CoreError::keyed(
            "name",
            "must not hold control characters",
            "viewNameControls",
            &[],
        ));
    }
    Ok(name.to_string())
}

/// The spec as the store keeps it (JSON), checked.
pub fn checked_spec(spec: &ViewSpec) -> CoreResult<String> {
    if spec.columns.len() > paydesk_model::views::COLUMNS_MAX {
        return Err(CoreError::keyed(
            "columns",
            "must be at most 40 columns",
            "viewColumnsMax",
            &[],
        ));
    }
    for c in &spec.columns {
        if c.id.is_empty() || c.id.len() > 40 {
            return Err(CoreError::keyed(
                "columns",
                "each column must be named in 1 to 40 characters",
                "viewColumnName",
                &[],
            ));
        }
        if let Some(w) = c.width
            && !(40..=1000).contains(&w)
        {
            return Err(CoreError::keyed(
                "columns",
                "each column must be 40 to 1000 pixels wide",
                "viewColumnWidth",
                &[],
            ));
        }
    }
    let json = serde_json::to_string(spec).map_err(|e| CoreError::internal(e.to_string()))?;
    if json.len() > paydesk_model::views::SPEC_MAX {
        return Err(CoreError::keyed(
            "view",
            "must be at most 16 KB",
            "viewTooLarge",
            &[],
        ));
    }
    Ok(json)
}
