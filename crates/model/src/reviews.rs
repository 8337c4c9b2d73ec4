//! Review submissions made from the desk (`review_submissions`).

use serde::{Deserialize, Serialize};

/// A review submission made from this desk: what went, and how it ended.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewSubmission {
    pub id: i64,
    /// The journal key; sending again with it never makes a second submission.
    pub reference: String,
    pub trade_no: String,
    pub info_count: i64,
    pub files: String,
    /// The journal status (`accepted`, `rejected`, `pending` = queued, `unknown`), or
    /// `error: ...` when nothing could be sent (a file failed its checks).
    pub outcome: String,
    pub at: i64,
    /// True when it failed for a network reason and can be sent again.
    pub queued: bool,
}

/// A submission's outcome to record under its reference.
#[derive(Debug, Clone, Copy)]
pub struct Outcome<'a> {
    pub reference: &'a str,
    pub journal_id: Option<i64>,
    pub trade_no: &'a str,
    pub info_count: i64,
    pub files: &'a str,
    pub outcome: &'a str,
    /// The request as kept for a resend (JSON).
    pub request: &'a str,
}
