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

-- 2. The team's own log rows (profile `team`, operations `team.*`) are the team's
--    functions' only, however a desk spells them. The check trimmed spaces only, so a
--    member's 'team' || E'\t' (or a newline, a no-break space, a zero-width space, a
--    look-alike letter) passed and read as the team's own row. A desk's profile and
--    operation are printable ASCII (profile names are letters, digits, - and _; the
--    operations are the desk's own words), so anything else is refused, naming the
--    field; what is left is compared without case or surrounding spaces.
CREATE OR REPLACE FUNCTION paydesk.audit_append(at bigint, profile text, operator text, operation text,
    identifiers text, result text, latency_ms bigint) RETURNS paydesk.audit_log
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE r paydesk.audit_log; mine bigint; sealed_id bigint;
BEGIN
    IF audit_append.operator IS DISTINCT FROM session_user::pg_catalog.text THEN
        RAISE EXCEPTION 'operator: the audit log''s operator is the database user who writes the row (%), not %',
            session_user, audit_append.operator;
    END IF;
    IF audit_append.profile IS NULL OR pg_catalog.length(audit_append.profile) OPERATOR(pg_catalog.>) 200 THEN
        RAISE EXCEPTION 'profile: at most 200 characters';
    END IF;
    IF audit_append.operation IS NULL OR pg_catalog.length(audit_append.operation) OPERATOR(pg_catalog.>) 200 THEN
        RAISE EXCEPTION 'operation: at most 200 characters';
    END IF;
    IF audit_append.profile OPERATOR(pg_catalog.!~) '^[ -~]*$' THEN
        RAISE EXCEPTION 'profile: printable ASCII only (letters, digits, spaces and punctuation; no tab, line break, no-break space or other character)';
    END IF;
    IF audit_append.operation OPERATOR(pg_catalog.!~) '^[ -~]*$' THEN
        RAISE EXCEPTION 'operation: printable ASCII only (letters, digits, spaces and punctuation; no tab, line break, no-break space or other character)';
    END IF;
    IF audit_append.identifiers IS NULL OR pg_catalog.length(audit_append.identifiers) OPERATOR(pg_catalog.>) 2000 THEN
        RAISE EXCEPTION 'identifiers: at most 2,000 characters (%)', pg_catalog.length(audit_append.identifiers);
    END IF;
    IF audit_append.result IS NULL OR pg_catalog.length(audit_append.result) OPERATOR(pg_catalog.>) 2000 THEN
        RAISE EXCEPTION 'result: at most 2,000 characters (%)', pg_catalog.length(audit_append.result);
    END IF;
    IF pg_catalog.lower(pg_catalog.btrim(audit_append.profile)) OPERATOR(pg_catalog.=) 'team' THEN
        RAISE EXCEPTION 'profile: team is the team''s own rows, written by the team''s functions only';
    END IF;
    IF pg_catalog.lower(pg_catalog.btrim(audit_append.operation)) OPERATOR(pg_catalog.~~) 'team.%' THEN
        RAISE EXCEPTION 'operation: team.* are the team''s own steps, written by the team''s functions only';
    END IF;
    PERFORM paydesk.check_session_bounds();
    INSERT INTO paydesk.audit_inbox (at, profile, operator, operation, identifiers, result, latency_ms, db_user)
    VALUES ((pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8,
            audit_append.profile, session_user, audit_append.operation,
            audit_append.identifiers, audit_append.result,
            GREATEST(0, coalesce(audit_append.latency_ms, 0)), session_user)
    RETURNING n INTO mine;
    sealed_id := paydesk.audit_seal_pending(mine);
    IF sealed_id IS NOT NULL THEN
        SELECT * INTO r FROM paydesk.audit_log l WHERE l.id OPERATOR(pg_catalog.=) sealed_id;
        RETURN r;
    END IF;
    SELECT 0, i.at, i.profile, i.operator, i.operation, i.identifiers, i.result, i.latency_ms,
           i.db_user, '', ''
      INTO r FROM paydesk.audit_inbox i WHERE i.n OPERATOR(pg_catalog.=) mine;
    RETURN r;
END $$;
