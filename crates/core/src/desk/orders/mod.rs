//! The desk's orders service (issue 32): `desk.orders()`.
//!
//! The order cache: sync and refresh from the gateway, queries and look-ups, an order's
//! detail and timeline, saved views and filters, the dashboard.

pub(super) mod bulk_lookup;
pub(super) mod customer;
pub(super) mod follow_up;
pub(super) mod made;
pub(super) mod queries;
pub(super) mod refresh;
pub(super) mod reversals;
pub(super) mod sync;
pub(super) mod timeline;
pub(super) mod views;

use super::Desk;

/// The order cache: sync and refresh from the gateway, queries and look-ups, an order's
/// detail and timeline, saved views and filters, the dashboard.
/// Borrowed from the [`Desk`] it serves (`desk.orders()`); it holds nothing of its own.
#[derive(Clone, Copy, Debug)]
pub struct Orders<'d> {
    desk: &'d Desk,
}

impl Desk {
    /// The order cache.
    pub fn orders(&self) -> Orders<'_> {
        Orders { desk: self }
    }
}
