//! The desk's records service (issue 32): `desk.records()`.
//!
//! The merchant's records beside the orders: beneficiaries, the review desk, purposes,
//! notifications (where they go, received, checked) and alerts.

pub(super) mod beneficiaries;
pub(super) mod notifications;
pub(super) mod notified;
pub(super) mod notify_to;
pub(super) mod purpose;
pub(super) mod review_desk;

use super::Desk;

/// The merchant's records beside the orders: beneficiaries, the review desk, purposes,
/// notifications (where they go, received, checked) and alerts.
/// Borrowed from the [`Desk`] it serves (`desk.records()`); it holds nothing of its own.
#[derive(Clone, Copy, Debug)]
pub struct Records<'d> {
    desk: &'d Desk,
}

impl Desk {
    /// The merchant's records beside the orders.
    pub fn records(&self) -> Records<'_> {
        Records { desk: self }
    }
}
