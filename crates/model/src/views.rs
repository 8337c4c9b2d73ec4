//! Saved views (issue 36): what a screen shows, kept under a name. A view holds the
//! screen's filters, a date range that is either relative ("last 7 days", resolved in the
//! business's time zone each time the view is applied) or fixed, the columns shown in
//! their order with their widths, and the sort. A view is its author's, or shared with
//! the team (team desks only).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::orders::OrderFilter;

/// The screens that keep views.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Screen {
    Orders,
    Activity,
    /// Refunds and chargebacks.
    Reversals,
    Events,
}

impl Screen {
    pub const ALL: [Screen; 4] = [
        Screen::Orders,
        Screen::Activity,
        Screen::Reversals,
        Screen::Events,
    ];

    /// The name the stores keep.
    pub fn as_str(self) -> &'static str {
        match self {
            Screen::Orders => "orders",
            Screen::Activity => "activity",
            Screen::Reversals => "reversals",
            Screen::Events => "events",
        }
    }

    pub fn parse(s: &str) -> Option<Screen> {
        Screen::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

/// A date range said relative to the day it is applied on, in the business's zone.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RelativeRange {
    Today,
    Yesterday,
    /// Today and the six days before.
    Last7Days,
    /// Today and the 29 days before.
    Last30Days,
    /// The calendar month of today, whole.
    ThisMonth,
    /// The calendar month before today's, whole.
    LastMonth,
}

/// A view's dates: relative, or fixed UTC millis (`to` exclusive), as a filter saved
/// before views had them.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum ViewDates {
    Relative { range: RelativeRange },
    Fixed { from: Option<i64>, to: Option<i64> },
}

/// A column shown, in the view's order, with its width in pixels (none: the screen's).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ViewColumn {
    pub id: String,
    pub width: Option<u32>,
}

/// The sort: a column's id (or, for the orders, the cache's sort key) and its direction.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ViewSort {
    pub key: String,
    pub descending: bool,
}

/// What a view keeps. Every member may be absent (a filter saved before views: its
/// filter only, dates included).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ViewSpec {
    /// The orders screen's filter (its dates are `dates`' when that is given).
    pub order_filter: Option<OrderFilter>,
    /// Another screen's filters by field (a search text, an operation, a kind).
    pub fields: BTreeMap<String, String>,
    pub dates: Option<ViewDates>,
    /// The columns shown, in order; empty: the screen's own.
    pub columns: Vec<ViewColumn>,
    pub sort: Option<ViewSort>,
}

/// A view as a store keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredView {
    pub id: i64,
    pub screen: Screen,
    pub name: String,
    pub spec: ViewSpec,
    /// Shared with the team (a team desk's views only).
    pub shared: bool,
    /// Its author (the database user on a team; none on a single desk).
    pub owner: Option<String>,
    /// The connected member wrote it (always on a single desk).
    pub mine: bool,
    pub updated_at: i64,
}

/// The longest view name.
pub const NAME_MAX: usize = 60;
/// The largest spec kept, in bytes of JSON.
pub const SPEC_MAX: usize = 16_384;
/// The most columns a view keeps.
pub const COLUMNS_MAX: usize = 40;

/// A stored spec read back; one a later PayDesk wrote and this one cannot read is
/// skipped rather than failing the list.
pub fn read_spec(json: &str) -> Option<ViewSpec> {
    serde_json::from_str(json).ok()
}
