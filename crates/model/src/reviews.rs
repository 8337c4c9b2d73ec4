//! Review submissions made from the desk (`review_submissions`), the evidence of what
//! each sent, and the review queue's statuses.

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
    /// Each file as it was sent (the last attempt): name, type, size and SHA-256.
    #[serde(default)]
    pub evidence: Vec<FileEvidence>,
}

/// What the desk keeps of one file it sent for review: never its bytes, their SHA-256.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileEvidence {
    /// The name sent (`fileName` and `suffix`).
    pub name: String,
    /// The `fileType` code.
    pub file_type: String,
    /// `.png`, `.jpg` or `.pdf`, from the content.
    pub suffix: String,
    /// `image/png`, `image/jpeg` or `application/pdf`.
    pub media_type: String,
    /// Bytes sent (decoded).
    pub size: u64,
    /// SHA-256 of the bytes sent, lowercase hex.
    pub sha256: String,
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
    /// The files' [`FileEvidence`] (a JSON array); `[]` leaves what a row has.
    pub evidence: &'a str,
}

/// Where a bank-transfer order stands with its review documents.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ReviewStatus {
    /// An open bank-transfer order with no documents sent yet.
    NeedsDocuments,
    /// The last attempt was stopped before anything left (a file failed its checks, a
    /// duplicate); nothing was sent.
    NotSent,
    /// The last attempt could not reach the gateway: it waits to be sent again under
    /// its reference.
    Queued,
    /// The last attempt may have reached the gateway: it is looked up before anything
    /// is sent again.
    Unknown,
    /// The gateway refused the submission (documents must be sent again).
    Refused,
    /// The gateway took the documents; no decision known yet.
    Submitted,
    /// The gateway's review approved the documents (its EDD notification).
    Approved,
    /// The gateway's review declined the documents (its EDD notification).
    Declined,
}

impl ReviewStatus {
    /// The status of an order in the queue: `open` whether the order still waits (its
    /// state is not final), `latest` its last submission, `decision` the gateway's last
    /// review decision (`approved` / `rejected`) received after that submission. `None`:
    /// the order is not in the queue (closed, and nothing was ever sent for it).
    pub fn of(
        open: bool,
        latest: Option<&ReviewSubmission>,
        decision: Option<&str>,
    ) -> Option<ReviewStatus> {
        let Some(s) = latest else {
            return open.then_some(ReviewStatus::NeedsDocuments);
        };
        Some(match s.outcome.as_str() {
            _ if s.queued => ReviewStatus::Queued,
            "accepted" => match decision {
                Some("approved") => ReviewStatus::Approved,
                Some("rejected") => ReviewStatus::Declined,
                _ => ReviewStatus::Submitted,
            },
            "rejected" => ReviewStatus::Refused,
            "pending" => ReviewStatus::Queued,
            o if o.starts_with("error") => ReviewStatus::NotSent,
            _ => ReviewStatus::Unknown,
        })
    }

    /// Whether the status asks something of a person (documents to send or send again,
    /// an outcome to settle).
    pub fn needs_action(self) -> bool {
        !matches!(self, ReviewStatus::Submitted | ReviewStatus::Approved)
    }
}

/// One row of the review queue: a bank-transfer order that needs or has review
/// documents.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewQueueItem {
    pub trade_no: String,
    pub mer_order_no: String,
    /// The order's list state (raw code).
    pub state: i64,
    pub currency: String,
    pub amount: String,
    pub status: ReviewStatus,
    /// Since when it stands so (UTC millis): the order's date while no documents went,
    /// else the last submission's time, or the decision's.
    pub since: i64,
    /// Seconds from `since` to now.
    pub age_secs: i64,
    /// Submissions made for it.
    pub submissions: i64,
    /// The last submission's reference (a queued one is sent again under it).
    pub reference: Option<String>,
    /// Files the last submission sent.
    pub files: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(outcome: &str, queued: bool) -> ReviewSubmission {
        ReviewSubmission {
            id: 1,
            reference: "RV-1".into(),
            trade_no: "T1".into(),
            info_count: 0,
            files: String::new(),
            outcome: outcome.into(),
            at: 0,
            queued,
            evidence: Vec::new(),
        }
    }

    #[test]
    fn an_orders_review_status_follows_its_last_submission_and_the_decision() {
        use ReviewStatus as S;
        assert_eq!(S::of(true, None, None), Some(S::NeedsDocuments));
        assert_eq!(S::of(false, None, None), None, "closed, nothing sent");
        let accepted = sub("accepted", false);
        assert_eq!(S::of(true, Some(&accepted), None), Some(S::Submitted));
        assert_eq!(
            S::of(false, Some(&accepted), Some("approved")),
            Some(S::Approved)
        );
        assert_eq!(
            S::of(true, Some(&accepted), Some("rejected")),
            Some(S::Declined)
        );
        assert_eq!(
            S::of(true, Some(&sub("pending", true)), None),
            Some(S::Queued)
        );
        assert_eq!(
            S::of(true, Some(&sub("rejected", false)), Some("approved")),
            Some(S::Refused),
            "a decision is about documents the gateway took"
        );
        assert_eq!(
            S::of(true, Some(&sub("error: too big", false)), None),
            Some(S::NotSent)
        );
        assert_eq!(
            S::of(true, Some(&sub("unknown", false)), None),
            Some(S::Unknown)
        );
        assert!(S::NeedsDocuments.needs_action() && !S::Approved.needs_action());
    }
}
