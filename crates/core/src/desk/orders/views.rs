//! Saved views at the desk (issue 36): a view listed with its dates as they apply now
//! (a relative range resolved in the business's time zone today), saved, changed,
//! deleted, and the view each screen used last. The saved filter sets of the orders
//! table are orders views holding only a filter.

use serde::{Deserialize, Serialize};

use crate::desk::Desk;
use crate::error::{CoreError, CoreResult};
use crate::period::Period;
use crate::store::orders::OrderFilter;
use crate::views::{self, RelativeRange, Screen, StoredView, ViewDates, ViewSpec};

/// A view as a screen applies it.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedView {
    pub id: i64,
    pub screen: Screen,
    pub name: String,
    pub spec: ViewSpec,
    /// Shared with the team.
    pub shared: bool,
    /// Its author on a team (the database user); none on a single desk.
    pub owner: Option<String>,
    /// The connected member wrote it.
    pub mine: bool,
    /// The view's dates as they apply now (UTC millis, `to` exclusive): a relative
    /// range resolved today in the business's zone, or its fixed dates.
    pub from: Option<i64>,
    pub to: Option<i64>,
}

impl Desk {
    fn applied(&self, v: StoredView) -> CoreResult<SavedView> {
        let (from, to) = match v.spec.dates {
            Some(ViewDates::Relative { range }) => {
                let p = self.orders().relative_range(range)?;
                (Some(p.from), Some(p.to))
            }
            Some(ViewDates::Fixed { from, to }) => (from, to),
            None => v
                .spec
                .order_filter
                .as_ref()
                .map_or((None, None), |f| (f.from, f.to)),
        };
        Ok(SavedView {
            id: v.id,
            screen: v.screen,
            name: v.name,
            spec: v.spec,
            shared: v.shared,
            owner: v.owner,
            mine: v.mine,
            from,
            to,
        })
    }

    fn view(&self, screen: Screen, id: i64) -> CoreResult<SavedView> {
        let v = self
            .store
            .views()
            .list(screen)?
            .into_iter()
            .find(|v| v.id == id)
            .ok_or_else(|| CoreError::not_found(format!("no view {id}")))?;
        self.applied(v)
    }
}

fn may_not(id: i64) -> CoreError {
    CoreError::not_found(format!(
        "view {id} is not there, or not yours to change (a shared view is its author's or an admin's)"
    ))
}

impl<'d> super::Orders<'d> {
    /// `range` as it applies now, in the business's time zone.
    pub fn relative_range(&self, range: RelativeRange) -> CoreResult<Period> {
        views::resolve(range, self.desk.clock.now_ms(), &self.reporting().zone())
    }

    /// The views of `screen` the member sees (their own, and on a team the shared
    /// ones), by name, with their dates as they apply now.
    pub fn views(&self, screen: Screen) -> CoreResult<Vec<SavedView>> {
        self.desk
            .store
            .views()
            .list(screen)?
            .into_iter()
            .map(|v| self.desk.applied(v))
            .collect()
    }

    /// Saves the member's view of `screen` under `name` (replacing their own of that
    /// name) and makes it the screen's current view.
    pub fn save_view(
        &self,
        screen: Screen,
        name: &str,
        spec: &ViewSpec,
        shared: bool,
    ) -> CoreResult<SavedView> {
        let name = views::checked_name(name)?;
        let json = views::checked_spec(spec)?;
        let id = self.desk.store.views().save(screen, &name, &json, shared)?;
        self.desk.store.views().set_last(screen, Some(id))?;
        self.desk.view(screen, id)
    }

    /// Replaces view `id` with what the screen shows now (its author's, or on a team an
    /// admin's for a shared view).
    pub fn update_view(&self, id: i64, spec: &ViewSpec, shared: bool) -> CoreResult<()> {
        let json = views::checked_spec(spec)?;
        if !self.desk.store.views().update(id, &json, shared)? {
            return Err(may_not(id));
        }
        Ok(())
    }

    /// Deletes view `id` (its author, or on a team an admin for a shared view).
    pub fn delete_view(&self, id: i64) -> CoreResult<()> {
        if !self.desk.store.views().delete(id)? {
            return Err(may_not(id));
        }
        Ok(())
    }

    /// Keeps `id` (none: no view) as the view `screen` opens with.
    pub fn use_view(&self, screen: Screen, id: Option<i64>) -> CoreResult<()> {
        self.desk.store.views().set_last(screen, id)
    }

    /// The view `screen` used last, if it is still there for the member.
    pub fn last_view(&self, screen: Screen) -> CoreResult<Option<SavedView>> {
        let Some(id) = self.desk.store.views().last(screen)? else {
            return Ok(None);
        };
        match self.desk.view(screen, id) {
            Ok(v) => Ok(Some(v)),
            Err(CoreError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The saved filter sets of the orders table (the orders views' filters), by name.
    pub fn saved_filters(&self) -> CoreResult<Vec<(String, OrderFilter)>> {
        Ok(self
            .views(Screen::Orders)?
            .into_iter()
            .filter(|v| v.mine)
            .map(|v| {
                let mut f = v.spec.order_filter.unwrap_or_default();
                f.from = v.from;
                f.to = v.to;
                (v.name, f)
            })
            .collect())
    }

    /// Saves a filter set under `name` (an orders view holding only the filter).
    pub fn save_filter(&self, name: &str, filter: &OrderFilter) -> CoreResult<()> {
        let spec = ViewSpec {
            order_filter: Some(filter.clone()),
            ..ViewSpec::default()
        };
        self.save_view(Screen::Orders, name, &spec, false)
            .map(|_| ())
    }

    /// Deletes the member's filter set (orders view) named `name`.
    pub fn delete_filter(&self, name: &str) -> CoreResult<()> {
        let found = self
            .desk
            .store
            .views()
            .list(Screen::Orders)?
            .into_iter()
            .find(|v| v.mine && v.name == name.trim());
        match found {
            Some(v) => self.delete_view(v.id),
            None => Ok(()),
        }
    }
}
