//! The rest of the team's read model on PostgreSQL, each table the same trait as its
//! SQLite table: the sync's progress, saved views (each member's own, or shared with the team), balance
//! snapshots, card operations, review submissions, refunds and chargebacks, and
//! notifications. Every row is the team's merchant's (`mer_no`).
//!
//! One difference on purpose: the sync's progress is the merchant's, not a profile's
//! (the profile name is kept on the row for information), as the team's journal is.
//! Every desk of the team reads the same orders, so a window one desk read is read, and
//! "last synced" is the team's.

use tokio_postgres::Row;

use super::PgLink;
use super::run::{Run, atomically, col};
use paydesk_store::balances::{BalanceSnapshot, BalanceStore};
use paydesk_store::cards::{CardOperation, CardStore, NewCardOperation};
use paydesk_store::error::CoreResult;
use paydesk_store::notifications::{NotificationStore, Stored};
use paydesk_store::now_ms;
use paydesk_store::reversals::{ChargebackSeen, RefundSeen, Reversal, ReversalStore};
use paydesk_store::reviews::{Outcome, ReviewStore, ReviewSubmission};
use paydesk_store::sync_state::{PageDone, SyncStateStore};
use paydesk_store::views::{Screen, StoredView, ViewStore};

macro_rules! handle {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $name<'a> {
            run: &'a dyn Run,
            mer_no: i64,
        }

        impl std::fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("mer_no", &self.mer_no)
                    .finish_non_exhaustive()
            }
        }

        impl<'a> $name<'a> {
            /// The table on `link` (the team of merchant `mer_no`), each call on its own.
            pub fn on(link: &'a PgLink, mer_no: i64) -> Self {
                $name { run: link, mer_no }
            }

            // Only the tables `CacheTx` carries run inside a caller's transaction today.
            #[allow(dead_code)]
            pub(crate) fn in_run(run: &'a dyn Run, mer_no: i64) -> Self {
                $name { run, mer_no }
            }
        }
    };
}

handle!(
    /// `paydesk.sync_state`: how far each window of the merchant's list was read.
    PgSyncState
);
handle!(
    /// `paydesk.saved_views` and `paydesk.last_views`: the views the connected member
    /// sees (their own and the shared ones) and the one each screen used last.
    PgViews
);
handle!(
    /// `paydesk.balance_snapshots`.
    PgBalances
);
handle!(
    /// `paydesk.card_operations`.
    PgCards
);
handle!(
    /// `paydesk.review_submissions`.
    PgReviews
);
handle!(
    /// `paydesk.refunds` and `paydesk.chargebacks`.
    PgReversals
);
handle!(
    /// `paydesk.notifications`.
    PgNotifications
);

impl SyncStateStore for PgSyncState<'_> {
    fn window_complete(&self, _profile: &str, start: i64, end: i64) -> CoreResult<bool> {
        let row = self.run.row(
            "SELECT complete, window_end FROM paydesk.sync_state WHERE mer_no = $1 AND window_start = $2",
            &[&self.mer_no, &start],
        )?;
        Ok(match row {
            Some(r) => col::<bool>(&r, 0)? && col::<i64>(&r, 1)? == end,
            None => false,
        })
    }

    fn page_done(&self, profile: &str, p: PageDone) -> CoreResult<()> {
        self.run.exec(
            "INSERT INTO paydesk.sync_state AS s (mer_no, window_start, profile, window_end, pages_done, total_pages,
                    complete, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
             ON CONFLICT (mer_no, window_start) DO UPDATE SET profile = excluded.profile,
               window_end = excluded.window_end,
               pages_done = greatest(s.pages_done, excluded.pages_done), total_pages = excluded.total_pages,
               complete = CASE WHEN excluded.pages_done >= excluded.total_pages THEN excluded.complete
                 WHEN s.window_end = excluded.window_end THEN s.complete OR excluded.complete ELSE false END,
               updated_at = excluded.updated_at, error = NULL",
            &[
                &self.mer_no,
                &p.window_start,
                &profile,
                &p.window_end,
                &p.page_num,
                &p.total_pages,
                &(p.clean && p.page_num >= p.total_pages),
                &now_ms(),
            ],
        )?;
        Ok(())
    }

    fn record_error(&self, profile: &str, error: &str) -> CoreResult<()> {
        self.run.exec(
            "INSERT INTO paydesk.sync_state (mer_no, window_start, profile, window_end, complete, updated_at, error)
             VALUES ($1, -1, $2, -1, false, $3, $4)
             ON CONFLICT (mer_no, window_start) DO UPDATE SET profile = excluded.profile,
               updated_at = excluded.updated_at, error = excluded.error",
            &[&self.mer_no, &profile, &now_ms(), &error],
        )?;
        Ok(())
    }

    fn last_error(&self, _profile: &str) -> CoreResult<Option<(i64, String)>> {
        self.run
            .row(
                "SELECT updated_at, error FROM paydesk.sync_state
                  WHERE mer_no = $1 AND window_start = -1 AND error IS NOT NULL",
                &[&self.mer_no],
            )?
            .map(|r| Ok((col(&r, 0)?, col(&r, 1)?)))
            .transpose()
    }

    fn last_synced(&self, _profile: &str) -> CoreResult<Option<i64>> {
        col(
            &self.run.one(
                "SELECT max(updated_at) FROM paydesk.sync_state WHERE mer_no = $1 AND window_start >= 0",
                &[&self.mer_no],
            )?,
            0,
        )
    }

    fn clear_error(&self, _profile: &str) -> CoreResult<()> {
        self.run.exec(
            // Cleared, not deleted: the signer holds no DELETE on the team's tables (enough
            // to LOCK one and stall the team); `last_error` reads a row with an error only.
            "UPDATE paydesk.sync_state SET error = NULL, updated_at = $2
              WHERE mer_no = $1 AND window_start = -1 AND error IS NOT NULL",
            &[&self.mer_no, &now_ms()],
        )?;
        Ok(())
    }
}

impl ViewStore for PgViews<'_> {
    fn list(&self, screen: Screen) -> CoreResult<Vec<StoredView>> {
        // Row-level security shows the member's own and the shared ones.
        let rows = self.run.rows(
            "SELECT id, name, spec, shared, owner, owner = session_user, updated_at
               FROM paydesk.saved_views
              WHERE mer_no = $1 AND screen = $2 ORDER BY name, owner",
            &[&self.mer_no, &screen.as_str()],
        )?;
        let mut out = Vec::new();
        for r in &rows {
            let json: String = col(r, 2)?;
            if let Some(spec) = paydesk_model::views::read_spec(&json) {
                out.push(StoredView {
                    id: col(r, 0)?,
                    screen,
                    name: col(r, 1)?,
                    spec,
                    shared: col(r, 3)?,
                    owner: Some(col(r, 4)?),
                    mine: col(r, 5)?,
                    updated_at: col(r, 6)?,
                });
            }
        }
        Ok(out)
    }

    fn save(&self, screen: Screen, name: &str, spec: &str, shared: bool) -> CoreResult<i64> {
        // `owner` is the connected member (its default); row-level security holds it.
        let r = self.run.one(
            "INSERT INTO paydesk.saved_views (mer_no, screen, name, spec, shared, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $6)
             ON CONFLICT (mer_no, owner, screen, name) DO UPDATE
                SET spec = excluded.spec, shared = excluded.shared, updated_at = excluded.updated_at
             RETURNING id",
            &[&self.mer_no, &screen.as_str(), &name, &spec, &shared, &now_ms()],
        )?;
        col(&r, 0)
    }

    fn update(&self, id: i64, spec: &str, shared: bool) -> CoreResult<bool> {
        // Row-level security lets only the author, or an admin for a shared view.
        let n = self.run.exec(
            "UPDATE paydesk.saved_views SET spec = $3, shared = $4, updated_at = $5
              WHERE mer_no = $1 AND id = $2",
            &[&self.mer_no, &id, &spec, &shared, &now_ms()],
        )?;
        Ok(n == 1)
    }

    fn delete(&self, id: i64) -> CoreResult<bool> {
        // No member holds DELETE on the table (it would let them LOCK it): a function
        // deletes what the member may.
        let r = self
            .run
            .one("SELECT paydesk.delete_view($1, $2)", &[&self.mer_no, &id])?;
        col(&r, 0)
    }

    fn last(&self, screen: Screen) -> CoreResult<Option<i64>> {
        let r = self.run.row(
            "SELECT view_id FROM paydesk.last_views
              WHERE mer_no = $1 AND owner = session_user AND screen = $2",
            &[&self.mer_no, &screen.as_str()],
        )?;
        match r {
            Some(r) => col(&r, 0),
            None => Ok(None),
        }
    }

    fn set_last(&self, screen: Screen, id: Option<i64>) -> CoreResult<()> {
        self.run.exec(
            "INSERT INTO paydesk.last_views (mer_no, screen, view_id) VALUES ($1, $2, $3)
             ON CONFLICT (mer_no, owner, screen) DO UPDATE SET view_id = excluded.view_id",
            &[&self.mer_no, &screen.as_str(), &id],
        )?;
        Ok(())
    }
}

const SNAPSHOT: &str =
    "currency, balance::text, un_checked_balance::text, total_balance::text, taken_at";

fn snapshot(r: &Row) -> CoreResult<BalanceSnapshot> {
    Ok(BalanceSnapshot {
        currency: col(r, 0)?,
        balance: col(r, 1)?,
        un_checked_balance: col(r, 2)?,
        total_balance: col(r, 3)?,
        taken_at: col(r, 4)?,
    })
}

impl BalanceStore for PgBalances<'_> {
    fn add(&self, s: &BalanceSnapshot) -> CoreResult<()> {
        self.run.exec(
            "INSERT INTO paydesk.balance_snapshots (mer_no, currency, balance, un_checked_balance, total_balance, taken_at)
             VALUES ($1, $2, $3::text::numeric, $4::text::numeric, $5::text::numeric, $6)",
            &[
                &self.mer_no,
                &s.currency,
                &s.balance,
                &s.un_checked_balance,
                &s.total_balance,
                &s.taken_at,
            ],
        )?;
        Ok(())
    }

    fn history(&self, currency: &str) -> CoreResult<Vec<BalanceSnapshot>> {
        let rows = self.run.rows(
            &format!(
                "SELECT {SNAPSHOT} FROM paydesk.balance_snapshots
                  WHERE mer_no = $1 AND currency = $2 ORDER BY taken_at, id"
            ),
            &[&self.mer_no, &currency],
        )?;
        rows.iter().map(snapshot).collect()
    }

    fn latest(&self) -> CoreResult<Vec<BalanceSnapshot>> {
        let rows = self.run.rows(
            &format!(
                "SELECT DISTINCT ON (currency) {SNAPSHOT} FROM paydesk.balance_snapshots
                  WHERE mer_no = $1 ORDER BY currency, taken_at DESC, id DESC"
            ),
            &[&self.mer_no],
        )?;
        rows.iter().map(snapshot).collect()
    }
}

impl CardStore for PgCards<'_> {
    fn add(&self, op: NewCardOperation<'_>) -> CoreResult<()> {
        self.run.exec(
            "INSERT INTO paydesk.card_operations (mer_no, journal_id, kind, card, amount, currency, fee, trade_no, outcome, at)
             VALUES ($1, $2, $3, $4, $5::text::numeric, $6, $7::text::numeric, $8, $9, $10)",
            &[
                &self.mer_no,
                &op.journal_id,
                &op.kind,
                &op.card,
                &op.amount,
                &op.currency,
                &op.fee,
                &op.trade_no,
                &op.outcome,
                &now_ms(),
            ],
        )?;
        Ok(())
    }

    fn latest(&self) -> CoreResult<Vec<CardOperation>> {
        let rows = self.run.rows(
            "SELECT kind, card, amount::text, currency, fee::text, trade_no, outcome, at, journal_id
               FROM paydesk.card_operations WHERE mer_no = $1 ORDER BY id DESC LIMIT 1000",
            &[&self.mer_no],
        )?;
        rows.iter()
            .map(|r| {
                Ok(CardOperation {
                    kind: col(r, 0)?,
                    card: col(r, 1)?,
                    amount: col(r, 2)?,
                    currency: col(r, 3)?,
                    fee: col(r, 4)?,
                    trade_no: col(r, 5)?,
                    outcome: col(r, 6)?,
                    at: col(r, 7)?,
                    journal_id: col(r, 8)?,
                })
            })
            .collect()
    }
}

impl ReviewStore for PgReviews<'_> {
    fn record(&self, o: Outcome<'_>) -> CoreResult<()> {
        let mer_no = self.mer_no;
        atomically(self.run, |run| {
            let updated = run.exec(
                "UPDATE paydesk.review_submissions SET outcome = $3, at = $4, journal_id = coalesce(journal_id, $5),
                        evidence = CASE WHEN $6::text = '[]' THEN evidence ELSE $6::text END
                  WHERE mer_no = $1 AND reference = $2",
                &[&mer_no, &o.reference, &o.outcome, &now_ms(), &o.journal_id, &o.evidence],
            )?;
            if updated == 0 {
                run.exec(
                    "INSERT INTO paydesk.review_submissions (mer_no, journal_id, trade_no, info_count, files, outcome,
                            at, reference, request, evidence)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                    &[
                        &mer_no,
                        &o.journal_id,
                        &o.trade_no,
                        &o.info_count,
                        &o.files,
                        &o.outcome,
                        &now_ms(),
                        &o.reference,
                        &o.request,
                        &o.evidence,
                    ],
                )?;
            }
            Ok(())
        })
    }

    fn request(&self, reference: &str) -> CoreResult<Option<String>> {
        self.run
            .row(
                "SELECT request FROM paydesk.review_submissions WHERE mer_no = $1 AND reference = $2
                  ORDER BY id LIMIT 1",
                &[&self.mer_no, &reference],
            )?
            .map(|r| col(&r, 0))
            .transpose()
    }

    fn latest(&self, trade_no: Option<&str>) -> CoreResult<Vec<ReviewSubmission>> {
        let rows = self.run.rows(
            "SELECT id, reference, trade_no, info_count, files, outcome, at, evidence FROM paydesk.review_submissions
              WHERE mer_no = $1 AND ($2::text IS NULL OR trade_no = $2) ORDER BY at DESC, id DESC LIMIT 1000",
            &[&self.mer_no, &trade_no],
        )?;
        rows.iter()
            .map(|r| {
                let outcome: String = col(r, 5)?;
                let reference: String = col(r, 1)?;
                Ok(ReviewSubmission {
                    id: col(r, 0)?,
                    queued: outcome == "pending" && !reference.is_empty(),
                    reference,
                    trade_no: col(r, 2)?,
                    info_count: col(r, 3)?,
                    files: col(r, 4)?,
                    outcome,
                    at: col(r, 6)?,
                    evidence: paydesk_store::reviews::evidence_of(&col::<String>(r, 7)?),
                })
            })
            .collect()
    }

    fn pending_count(&self) -> CoreResult<i64> {
        col(
            &self.run.one(
                "SELECT count(*) FROM paydesk.review_submissions
                  WHERE mer_no = $1 AND outcome NOT IN ('accepted', 'rejected')",
                &[&self.mer_no],
            )?,
            0,
        )
    }
}

fn text(d: Option<rust_decimal::Decimal>) -> Option<String> {
    d.map(|d| d.to_string())
}

impl ReversalStore for PgReversals<'_> {
    fn refund_from_order_query(&self, r: RefundSeen<'_>) -> CoreResult<()> {
        self.run.exec(
            "INSERT INTO paydesk.refunds AS f (mer_no, trade_no, refund_no, state, refund_amount, refund_currency, settle, fetched_at)
             VALUES ($1, $2, $3, $4, $5::text::numeric, $6, $7, $8)
             ON CONFLICT (mer_no, trade_no, refund_no) DO UPDATE SET
               state = CASE WHEN excluded.state = '' THEN f.state ELSE excluded.state END,
               refund_amount = excluded.refund_amount, fetched_at = excluded.fetched_at",
            &[
                &self.mer_no,
                &r.trade_no,
                &r.refund_no,
                &r.state,
                &text(r.amount),
                &r.currency,
                &r.settle,
                &now_ms(),
            ],
        )?;
        Ok(())
    }

    fn refund(&self, r: RefundSeen<'_>) -> CoreResult<()> {
        self.run.exec(
            "INSERT INTO paydesk.refunds (mer_no, trade_no, refund_no, state, refund_amount, refund_currency, trade_fee,
                    settle, receive_amount, fetched_at)
             VALUES ($1, $2, $3, $4, $5::text::numeric, $6, $7::text::numeric, $8, $9::text::numeric, $10)
             ON CONFLICT (mer_no, trade_no, refund_no) DO UPDATE SET state = excluded.state,
               refund_amount = excluded.refund_amount, trade_fee = excluded.trade_fee, settle = excluded.settle,
               receive_amount = excluded.receive_amount, fetched_at = excluded.fetched_at",
            &[
                &self.mer_no,
                &r.trade_no,
                &r.refund_no,
                &r.state,
                &text(r.amount),
                &r.currency,
                &text(r.fee),
                &r.settle,
                &text(r.receive_amount),
                &now_ms(),
            ],
        )?;
        Ok(())
    }

    fn chargeback(&self, c: ChargebackSeen<'_>) -> CoreResult<()> {
        self.run.exec(
            "INSERT INTO paydesk.chargebacks (mer_no, trade_no, chargeback_amount, chargeback_currency,
                    actual_chargeback_amount, actual_chargeback_currency, status, fetched_at)
             VALUES ($1, $2, $3::text::numeric, $4, $5::text::numeric, $6, $7, $8)
             ON CONFLICT (mer_no, trade_no) DO UPDATE SET chargeback_amount = excluded.chargeback_amount,
               chargeback_currency = excluded.chargeback_currency,
               actual_chargeback_amount = excluded.actual_chargeback_amount,
               actual_chargeback_currency = excluded.actual_chargeback_currency,
               status = excluded.status, fetched_at = excluded.fetched_at",
            &[
                &self.mer_no,
                &c.trade_no,
                &text(c.amount),
                &c.currency,
                &text(c.actual_amount),
                &c.actual_currency,
                &c.status,
                &now_ms(),
            ],
        )?;
        Ok(())
    }

    fn list(&self, trade_no: Option<&str>) -> CoreResult<Vec<Reversal>> {
        let rows = self.run.rows(
            "SELECT 'refund', trade_no, refund_no, state, refund_amount::text, refund_currency, trade_fee::text,
                    settle, fetched_at
               FROM paydesk.refunds WHERE mer_no = $1 AND ($2::text IS NULL OR trade_no = $2)
             UNION ALL
             SELECT 'chargeback', trade_no, '', status, chargeback_amount::text, chargeback_currency, NULL, NULL,
                    fetched_at
               FROM paydesk.chargebacks WHERE mer_no = $1 AND ($2::text IS NULL OR trade_no = $2)
             ORDER BY 9 DESC",
            &[&self.mer_no, &trade_no],
        )?;
        rows.iter()
            .map(|r| {
                Ok(Reversal {
                    kind: col(r, 0)?,
                    trade_no: col(r, 1)?,
                    refund_no: col(r, 2)?,
                    state: col(r, 3)?,
                    amount: col(r, 4)?,
                    currency: col(r, 5)?,
                    fee: col(r, 6)?,
                    settle: col(r, 7)?,
                    fetched_at: col(r, 8)?,
                })
            })
            .collect()
    }
}

fn stored(r: &Row) -> CoreResult<Stored> {
    Ok(Stored {
        id: col(r, 0)?,
        received_at: col(r, 1)?,
        kind: col(r, 2)?,
        trade_no: col(r, 3)?,
        body: col(r, 4)?,
        signature_ok: col(r, 5)?,
    })
}

impl NotificationStore for PgNotifications<'_> {
    fn add(&self, kind: &str, trade_no: &str, body: &str, signature_ok: bool) -> CoreResult<()> {
        self.run.exec(
            "INSERT INTO paydesk.notifications (mer_no, received_at, kind, trade_no, body, signature_ok)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[&self.mer_no, &now_ms(), &kind, &trade_no, &body, &signature_ok],
        )?;
        Ok(())
    }

    fn latest(&self, limit: i64) -> CoreResult<Vec<Stored>> {
        let rows = self.run.rows(
            "SELECT id, received_at, kind, trade_no, body, signature_ok FROM paydesk.notifications
              WHERE mer_no = $1 ORDER BY id DESC LIMIT $2",
            &[&self.mer_no, &limit],
        )?;
        rows.iter().map(stored).collect()
    }

    fn of_order(&self, trade_no: &str) -> CoreResult<Vec<Stored>> {
        let rows = self.run.rows(
            "SELECT id, received_at, kind, trade_no, body, signature_ok FROM paydesk.notifications
              WHERE mer_no = $1 AND trade_no = $2 ORDER BY id LIMIT 200",
            &[&self.mer_no, &trade_no],
        )?;
        rows.iter().map(stored).collect()
    }
}
