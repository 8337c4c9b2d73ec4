-- Issue 30, what the second review left (notes: closing3, review-team30-r2), each
-- attacked by a member with plain SQL first (tests/team/team_review_r3.rs).
--
-- 1. No member LOCKs a table the team's work reads. PostgreSQL lets a role LOCK a
--    table in a mode above ROW EXCLUSIVE when it holds table-level UPDATE, DELETE or
--    TRUNCATE on it (column-level UPDATE does not count). The signer held table-level
--    UPDATE on the journal and the read model (and DELETE on sync_state), so a signer's
--    `LOCK TABLE paydesk.journal IN ACCESS EXCLUSIVE MODE` stalled every new request.
--    Now the signer holds UPDATE on exactly the columns the desk's code writes; the
--    sync's error is cleared by an UPDATE (no DELETE at all). Tables the desk only
--    appends to (order history, notifications, balance snapshots, card operations)
--    keep INSERT alone.

REVOKE UPDATE ON paydesk.journal, paydesk.order_history, paydesk.refunds,
    paydesk.chargebacks, paydesk.notifications, paydesk.balance_snapshots,
    paydesk.card_operations, paydesk.review_submissions, paydesk.sync_state
    FROM paydesk_signer;
REVOKE DELETE ON paydesk.sync_state FROM paydesk_signer;

-- crates/core/src/store/pg/journal.rs: a send's claim, outcome, look-ups and resolution.
GRANT UPDATE (status, trade_no, code, message, attempts, updated_at, next_check_at,
              claimed_by, claimed_until, sent_at, lookups, resolution, answered_ok)
    ON paydesk.journal TO paydesk_signer;
-- crates/core/src/store/pg/cache.rs: a refund seen again, a chargeback's new figures.
GRANT UPDATE (state, refund_amount, trade_fee, settle, receive_amount, fetched_at)
    ON paydesk.refunds TO paydesk_signer;
GRANT UPDATE (chargeback_amount, chargeback_currency, actual_chargeback_amount,
              actual_chargeback_currency, status, fetched_at)
    ON paydesk.chargebacks TO paydesk_signer;
-- A review submission's outcome.
GRANT UPDATE (outcome, at, journal_id) ON paydesk.review_submissions TO paydesk_signer;
-- The sync's progress, and its last error (cleared by writing NULL).
GRANT UPDATE (profile, window_end, pages_done, total_pages, complete, updated_at, error)
    ON paydesk.sync_state TO paydesk_signer;

