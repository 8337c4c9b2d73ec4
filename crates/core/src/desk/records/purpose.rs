//! A movement's purpose on its way to the journal (issue 35): checked by the form's
//! entry point before anything is written, then carried to [`Desk::submit`] in a
//! task-local scope (the wire operation has no place for it), where it is written with
//! the journal entry in the same statement, before the request leaves.

use std::future::Future;

use crate::desk::Desk;
use crate::error::CoreResult;
use crate::purpose::{self, Purpose};

tokio::task_local! {
    /// The checked purpose of the movement the current task submits.
    static PURPOSE: Option<Purpose>;
}

/// The purpose of the movement being submitted, if one was given.
pub(in crate::desk) fn current() -> Option<Purpose> {
    PURPOSE.try_with(Clone::clone).ok().flatten()
}

impl Desk {
    /// Runs `f` (a form's submission) with `p` as its movement's purpose.
    pub(in crate::desk) async fn with_purpose<F: Future>(p: Option<Purpose>, f: F) -> F::Output {
        PURPOSE.scope(p, f).await
    }
}

impl<'d> super::Records<'d> {
    /// `p` checked by the profile's rules (required or not; bounds; characters): a
    /// refusal names the field, and nothing is journaled.
    pub fn check_purpose(&self, p: &Purpose) -> CoreResult<Option<Purpose>> {
        purpose::check(p, self.desk.profile.safety.purpose_required)
    }
}
