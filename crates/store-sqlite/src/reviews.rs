//! `review_submissions`: review documents sent (or queued) from this desk for
//! bank-transfer orders, with the request kept for a resend (file paths, not contents).

/// The table's trait and types are the store's (`paydesk-store`); kept at this path.
pub use paydesk_store::reviews::*;

use std::ops::Deref;

use rusqlite::{Connection, OptionalExtension, params};

use super::now_ms;
use crate::Db;
use paydesk_store::error::CoreResult;

/// The review submissions of one database (a connection or a transaction).
#[derive(Debug, Clone, Copy)]
pub struct Reviews<C> {
    conn: C,
}

impl<C: Deref<Target = Connection>> Reviews<C> {
    pub fn on(conn: C) -> Self {
        Reviews { conn }
    }
}

impl<C: Deref<Target = Connection>> ReviewStore for Reviews<C> {
    fn record(&self, o: Outcome<'_>) -> CoreResult<()> {
        super::atomic(&self.conn, || {
            let updated = self.conn.execute(
                "UPDATE review_submissions SET outcome = ?2, at = ?3, journal_id = coalesce(journal_id, ?4),
                 evidence = CASE WHEN ?5 = '[]' THEN evidence ELSE ?5 END WHERE reference = ?1",
                params![o.reference, o.outcome, now_ms(), o.journal_id, o.evidence],
            ).db()?;
            if updated == 0 {
                self.conn.execute(
                    "INSERT INTO review_submissions (journal_id, trade_no, info_count, files, outcome, at, reference, request, evidence) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    params![o.journal_id, o.trade_no, o.info_count, o.files, o.outcome, now_ms(), o.reference, o.request, o.evidence],
                ).db()?;
            }
            Ok(())
        })
    }

    fn request(&self, reference: &str) -> CoreResult<Option<String>> {
        self.conn
            .query_row(
                "SELECT request FROM review_submissions WHERE reference = ?1",
                [reference],
                |r| r.get(0),
            )
            .optional()
            .db()
    }

    fn latest(&self, trade_no: Option<&str>) -> CoreResult<Vec<ReviewSubmission>> {
        let mut stmt = self.conn.prepare(
            "SELECT id, reference, trade_no, info_count, files, outcome, at, evidence FROM review_submissions
             WHERE ?1 IS NULL OR trade_no = ?1 ORDER BY at DESC, id DESC LIMIT 1000",
        ).db()?;
        let rows = stmt
            .query_map([trade_no], |r| {
                let outcome: String = r.get(5)?;
                let reference: String = r.get(1)?;
                Ok(ReviewSubmission {
                    id: r.get(0)?,
                    queued: outcome == "pending" && !reference.is_empty(),
                    reference,
                    trade_no: r.get(2)?,
                    info_count: r.get(3)?,
                    files: r.get(4)?,
                    outcome,
                    at: r.get(6)?,
                    evidence: evidence_of(&r.get::<_, String>(7)?),
                })
            })
            .db()?;
        rows.collect::<Result<Vec<_>, _>>().db()
    }

    fn pending_count(&self) -> CoreResult<i64> {
        self.conn.query_row(
            "SELECT COUNT(*) FROM review_submissions WHERE outcome NOT IN ('accepted', 'rejected')",
            [],
            |r| r.get(0),
        ).db()
    }
}
