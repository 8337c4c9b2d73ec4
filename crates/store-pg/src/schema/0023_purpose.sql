-- Issue 35, a reason on every movement: a journal entry's purpose and optional reference
-- (a ticket, an invoice number), attacked by a member with plain SQL first
-- (tests/team/team_purpose.rs).
--
-- - The purpose is written with the entry, in the same INSERT, before the request
--   leaves. For a number a team request carries, the database takes it from the
--   maker's request row (`form -> 'purpose'`), whatever the writing signer gives: the
--   approvers saw the maker's purpose, and that is what the journal keeps.
-- - Once written, nobody changes it: no member holds UPDATE on the columns (the
--   signer's column grants of 0016 name others), and a trigger refuses a change even
--   from a role that would.
-- - Bounded printable text, as the desk checks it (crates/core/src/purpose.rs): at most
--   140 characters (reference 64), no control characters and no invisible or
--   direction-changing characters (the set 0022 refuses in audit identifiers, and
--   U+061C), in the journal and in a request row's form.

ALTER TABLE paydesk.journal ADD COLUMN purpose text, ADD COLUMN purpose_ref text;
ALTER TABLE paydesk.journal ADD CONSTRAINT journal_purpose_text CHECK (
    purpose IS NULL OR (pg_catalog.length(purpose) OPERATOR(pg_catalog.<=) 140
        AND purpose OPERATOR(pg_catalog.!~) '[\u0001-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]'));
ALTER TABLE paydesk.journal ADD CONSTRAINT journal_purpose_ref_text CHECK (
    purpose_ref IS NULL OR (pg_catalog.length(purpose_ref) OPERATOR(pg_catalog.<=) 64
        AND purpose_ref OPERATOR(pg_catalog.!~) '[\u0001-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]'));
ALTER TABLE paydesk.request_rows ADD CONSTRAINT request_row_purpose_text CHECK (
    pg_catalog.length(coalesce(form -> 'purpose' ->> 'text', '')) OPERATOR(pg_catalog.<=) 140
    AND pg_catalog.length(coalesce(form -> 'purpose' ->> 'reference', '')) OPERATOR(pg_catalog.<=) 64
    AND coalesce(form -> 'purpose' ->> 'text', '') OPERATOR(pg_catalog.!~) '[\u0001-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]'
    AND coalesce(form -> 'purpose' ->> 'reference', '') OPERATOR(pg_catalog.!~) '[\u0001-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]');

-- The maker's purpose for a number a request row carries.
CREATE FUNCTION paydesk.journal_purpose_of_request() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE f pg_catalog.jsonb;
BEGIN
    SELECT rr.form INTO f FROM paydesk.request_rows rr
     WHERE rr.mer_order_no OPERATOR(pg_catalog.=) NEW.mer_order_no;
    IF FOUND THEN
        NEW.purpose := NULLIF(pg_catalog.btrim(f OPERATOR(pg_catalog.->) 'purpose' OPERATOR(pg_catalog.->>) 'text'), '');
        NEW.purpose_ref := NULLIF(pg_catalog.btrim(f OPERATOR(pg_catalog.->) 'purpose' OPERATOR(pg_catalog.->>) 'reference'), '');
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.journal_purpose_of_request() FROM PUBLIC;
CREATE TRIGGER journal_purpose_of_request BEFORE INSERT ON paydesk.journal
    FOR EACH ROW EXECUTE FUNCTION paydesk.journal_purpose_of_request();

CREATE FUNCTION paydesk.journal_purpose_kept() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, paydesk, pg_temp AS $$
BEGIN
    IF NEW.purpose IS DISTINCT FROM OLD.purpose OR NEW.purpose_ref IS DISTINCT FROM OLD.purpose_ref THEN
        RAISE EXCEPTION 'purpose: a journal entry''s purpose and reference are kept as written';
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.journal_purpose_kept() FROM PUBLIC;
CREATE TRIGGER journal_purpose_kept BEFORE UPDATE ON paydesk.journal
    FOR EACH ROW EXECUTE FUNCTION paydesk.journal_purpose_kept();

-- Every member reads the journal through `journal_shown` (0022): the purpose with it.
CREATE OR REPLACE VIEW paydesk.journal_shown WITH (security_barrier) AS
SELECT j.id, j.mer_no, j.profile, j.operation, j.mer_order_no,
       CASE WHEN j.operation OPERATOR(pg_catalog.<>) 'v1.payout' THEN j.request
            WHEN paydesk.sees_journal_holders(j.mer_order_no) THEN j.request
            ELSE paydesk.holder_free_request(j.request) END AS request,
       CASE WHEN j.operation OPERATOR(pg_catalog.<>) 'v1.payout' THEN j.summary
            WHEN paydesk.sees_journal_holders(j.mer_order_no) THEN j.summary
            WHEN j.summary OPERATOR(pg_catalog.~) '^payout CARD [^ ]+ [^ ]+ to .* [^ ]+$'
                THEN pg_catalog.regexp_replace(j.summary, '^(payout CARD [^ ]+ [^ ]+ to ).* ([^ ]+)$', '\1card \2')
            ELSE 'payout CARD (holder hidden)' END AS summary,
       j.status, j.trade_no, j.code, j.message, j.attempts, j.created_at, j.updated_at,
       j.next_check_at, j.fingerprint, j.claimed_by, j.claimed_until, j.sent_at, j.lookups,
       j.resolution, j.answered_ok, j.written_by, j.purpose, j.purpose_ref
  FROM paydesk.journal j;
GRANT SELECT (purpose, purpose_ref) ON paydesk.journal TO paydesk_viewer, paydesk_support,
    paydesk_maker, paydesk_admin;

-- Approvers see the maker's purpose: a request row's purpose (its form's `purpose`) as a
-- column of its own, which every member who reads the rows may read (the form itself,
-- which carries the full account, stays the signers').
ALTER TABLE paydesk.request_rows
    ADD COLUMN purpose pg_catalog.jsonb GENERATED ALWAYS AS (form OPERATOR(pg_catalog.->) 'purpose') STORED;
GRANT SELECT (purpose) ON paydesk.request_rows TO paydesk_viewer, paydesk_maker,
    paydesk_approver, paydesk_admin;
