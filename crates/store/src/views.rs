//! Saved views: the table's trait, which each backend implements.

pub use paydesk_model::views::{Screen, StoredView};

use crate::error::CoreResult;

/// Saved views. On a team, row-level security holds who sees and changes which.
pub trait ViewStore {
    /// The views of `screen` the connected member sees, by name.
    fn list(&self, screen: Screen) -> CoreResult<Vec<StoredView>>;

    /// Saves the member's own view of `screen` named `name` (replacing one of the same
    /// name), its spec already checked JSON; returns its id.
    fn save(&self, screen: Screen, name: &str, spec: &str, shared: bool) -> CoreResult<i64>;

    /// Replaces view `id`'s spec; false when the member may not (or it is gone).
    fn update(&self, id: i64, spec: &str, shared: bool) -> CoreResult<bool>;

    /// Deletes view `id`; false when the member may not (or it is gone).
    fn delete(&self, id: i64) -> CoreResult<bool>;

    /// The view `screen` last used (its id), if any.
    fn last(&self, screen: Screen) -> CoreResult<Option<i64>>;

    /// Keeps the view `screen` uses now (none: no view).
    fn set_last(&self, screen: Screen, id: Option<i64>) -> CoreResult<()>;
}
