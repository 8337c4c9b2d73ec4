//! `ReviewStore`'s contract: a submission is one row per reference (sending again
//! updates it, keeping the evidence of the files when the new attempt sent none), its
//! request kept for a resend, listed newest first per order; queued while pending;
//! counted until a final answer.

use paydesk_store::prelude::ReviewStore;
use paydesk_store::reviews::Outcome;

use super::Facts;

const EVIDENCE: &str = r#"[{"name":"id.png","fileType":"1","suffix":".png","mediaType":"image/png","size":68,"sha256":"ab"}]"#;

fn outcome<'a>(
    reference: &'a str,
    trade_no: &'a str,
    outcome: &'a str,
    evidence: &'a str,
) -> Outcome<'a> {
    Outcome {
        reference,
        journal_id: None,
        trade_no,
        info_count: 1,
        files: "id.png",
        outcome,
        request: r#"{"tradeNo":"T1"}"#,
        evidence,
    }
}

pub fn a_submission_is_one_row_per_reference_until_its_final_answer(
    r: &dyn ReviewStore,
    facts: Facts,
) {
    let n = facts.name;
    r.record(outcome("ref-1", "T1", "pending", EVIDENCE))
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(3));
    r.record(outcome("ref-2", "T2", "accepted", "[]")).unwrap();
    assert_eq!(r.pending_count().unwrap(), 1, "{n}");
    assert_eq!(
        r.request("ref-1").unwrap().as_deref(),
        Some(r#"{"tradeNo":"T1"}"#),
        "{n}"
    );
    assert_eq!(r.request("ref-9").unwrap(), None, "{n}");

    let t1 = r.latest(Some("T1")).unwrap();
    assert_eq!(t1.len(), 1, "{n}");
    assert!(t1[0].queued, "{n}: pending with a reference is queued");
    assert_eq!(t1[0].evidence.len(), 1, "{n}");
    assert_eq!(t1[0].evidence[0].sha256, "ab", "{n}");
    assert_eq!(t1[0].evidence[0].size, 68, "{n}");

    // Sent again under its reference: the same row, now answered; no files sent this
    // time leaves the evidence of the last files sent.
    std::thread::sleep(std::time::Duration::from_millis(3));
    r.record(outcome("ref-1", "T1", "accepted", "[]")).unwrap();
    let t1 = r.latest(Some("T1")).unwrap();
    assert_eq!(t1.len(), 1, "{n}: one row per reference");
    assert_eq!(t1[0].outcome, "accepted", "{n}");
    assert!(!t1[0].queued, "{n}");
    assert_eq!(t1[0].evidence.len(), 1, "{n}: the evidence stays");
    assert_eq!(r.pending_count().unwrap(), 0, "{n}");

    let all = r.latest(None).unwrap();
    assert_eq!(
        all.iter().map(|s| s.reference.as_str()).collect::<Vec<_>>(),
        ["ref-1", "ref-2"],
        "{n}: newest first"
    );
}
