//! The desk's money service (issue 32): `desk.money()`.
//!
//! Moving money and what bounds it: payins, payouts and card moves (each in the journal
//! before it is sent), reviews, bulk payouts, funds checks and limits, refunds, balances,
//! the connection check.

pub(super) mod balances;
pub(super) mod bulk_file;
pub(super) mod bulk_send;
pub(super) mod check;
pub(super) mod currencies;
pub(super) mod funds;
pub(super) mod payments;
pub(super) mod same_payout;

use super::Desk;

/// Moving money and what bounds it: payins, payouts and card moves (each in the journal
/// before it is sent), reviews, bulk payouts, funds checks and limits, refunds, balances,
/// the connection check.
/// Borrowed from the [`Desk`] it serves (`desk.money()`); it holds nothing of its own.
#[derive(Clone, Copy, Debug)]
pub struct Money<'d> {
    desk: &'d Desk,
}

impl Desk {
    /// Moving money and what bounds it.
    pub fn money(&self) -> Money<'_> {
        Money { desk: self }
    }
}
