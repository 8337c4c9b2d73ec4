//! The desk's journal service (issue 32): `desk.journal()`.
//!
//! The journal of intents and the audit log: what needs attention, resends,
//! reconciliation and resolution, deliberate duplicates, the entries; the audit log's
//! checks, lists, exports and archives, and the team's audit chain.

pub(super) mod attention;
pub(super) mod audit_log;
pub(super) mod entries;
pub(super) mod lost_audit;
pub(super) mod resend_payin;

use super::Desk;

/// The journal of intents and the audit log: what needs attention, resends,
/// reconciliation and resolution, deliberate duplicates, the entries; the audit log's
/// checks, lists, exports and archives, and the team's audit chain.
/// Borrowed from the [`Desk`] it serves (`desk.journal()`); it holds nothing of its own.
#[derive(Clone, Copy, Debug)]
pub struct Journal<'d> {
    desk: &'d Desk,
}

impl Desk {
    /// The journal of intents and the audit log.
    pub fn journal(&self) -> Journal<'_> {
        Journal { desk: self }
    }
}
