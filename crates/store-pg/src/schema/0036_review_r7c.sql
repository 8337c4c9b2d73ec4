-- What the seventh hostile review found in 0034 (notes: review-r7, R7-2), attacked as
-- the maker who would use it with plain SQL first (tests/team/team_review_r7.rs). Every
-- function here pins its search_path (pg_temp last) and is revoked from PUBLIC; the
-- definer ones take a lock bound.

-- R7-2 (0034's F6). Adding a payee reads the team's payee approval without holding the
-- team's row, so an admin turning approval on never waits for a maker. But the add
-- became visible only when the maker committed: a maker who added a payee (approval off,
-- so approved as added) and kept the transaction open, or who read the setting from a
-- REPEATABLE READ snapshot taken before the switch, committed a self-approved payee
-- after approval was on, and paid it. Now the cut-off is the admin's switch itself:
-- * turning approval on keeps the database's snapshot of that moment (which
--   transactions had committed: `team.payee_approval_on`, written by the trigger only);
-- * a payee keeps the transaction that added it (`added_xact`);
-- * with approval on, a payee approved as added (approval was off, as its adder read
--   it) whose transaction had not committed at the switch counts as awaiting another
--   member's approval: in the book every desk reads (`beneficiaries_shown`), in the
--   worker's read of it, in a request row naming it (`request_row_payee`), and
--   `approve_beneficiary` approves it (by another member; four eyes).
-- Nobody waits for anybody: the admin's switch is as quick as 0034 made it.
ALTER TABLE paydesk.beneficiaries ADD COLUMN added_xact xid8 DEFAULT pg_catalog.pg_current_xact_id();
ALTER TABLE paydesk.team ADD COLUMN payee_approval_on pg_catalog.pg_snapshot;

CREATE FUNCTION paydesk.team_payee_approval_on() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, paydesk, pg_temp AS $$
BEGIN
    IF NEW.payee_approval AND NOT OLD.payee_approval THEN
        NEW.payee_approval_on := pg_catalog.pg_current_snapshot();
    ELSE
        NEW.payee_approval_on := OLD.payee_approval_on;
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.team_payee_approval_on() FROM PUBLIC;
CREATE TRIGGER team_payee_approval_on BEFORE UPDATE ON paydesk.team
    FOR EACH ROW EXECUTE FUNCTION paydesk.team_payee_approval_on();

-- Whether payee `payee` was approved as added although approval was on before its add
-- committed (then it waits for another member's approval). A payee added before this
-- migration, or while approval had never been turned on, keeps its approval. (OR
-- REPLACE: the book's view depends on it, so a test that undoes this file to upgrade
-- again keeps it.)
CREATE OR REPLACE FUNCTION paydesk.payee_approved_late(payee bigint) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
    SELECT coalesce((
        SELECT NOT b.needs_approval AND t.payee_approval
               AND b.added_xact IS NOT NULL AND t.payee_approval_on IS NOT NULL
               AND NOT pg_catalog.pg_visible_in_snapshot(b.added_xact, t.payee_approval_on)
          FROM paydesk.beneficiaries b, paydesk.team t
         WHERE b.id OPERATOR(pg_catalog.=) payee_approved_late.payee AND t.id OPERATOR(pg_catalog.=) 1), false)
$$;
REVOKE ALL ON FUNCTION paydesk.payee_approved_late(bigint) FROM PUBLIC;
-- The book's view calls it as the member reading it.
GRANT EXECUTE ON FUNCTION paydesk.payee_approved_late(bigint) TO paydesk_viewer, paydesk_support,
    paydesk_maker, paydesk_approver, paydesk_signer, paydesk_admin;

-- As 0029's, a late self-approval shown as awaiting approval.
CREATE OR REPLACE VIEW paydesk.beneficiaries_shown WITH (security_barrier) AS
SELECT b.id, b.mer_no, b.nickname, b.nickname_key, b.kind,
       CASE WHEN s.sees THEN b.first_name ELSE '' END AS first_name,
       CASE WHEN s.sees THEN b.last_name ELSE '' END AS last_name,
       b.account_masked,
       CASE WHEN s.sees THEN b.bank END AS bank,
       b.country, b.needs_approval OR l.late AS needs_approval, b.added_by, b.added_at,
       CASE WHEN l.late THEN NULL ELSE b.approved_by END AS approved_by,
       CASE WHEN l.late THEN NULL ELSE b.approved_at END AS approved_at,
       paydesk.payee_seal_hash(b.account_sealed) AS account_sealed_sha256
  FROM paydesk.beneficiaries b
 CROSS JOIN LATERAL (SELECT paydesk.payee_approved_late(b.id) AS late) l
 CROSS JOIN (SELECT pg_catalog.pg_has_role(session_user, 'paydesk_maker', 'MEMBER')
                 OR pg_catalog.pg_has_role(session_user, 'paydesk_approver', 'MEMBER')
                 OR pg_catalog.pg_has_role(session_user, 'paydesk_signer', 'MEMBER')
                 OR pg_catalog.pg_has_role(session_user, 'paydesk_admin', 'MEMBER') AS sees) s;

-- As 0034's, a late self-approval is no approval.
CREATE OR REPLACE FUNCTION paydesk.request_row_payee() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE r paydesk.requests; b paydesk.beneficiaries; given_id text; given_hash text;
BEGIN
    IF NOT (NEW.form OPERATOR(pg_catalog.?) 'payeeId' OR NEW.form OPERATOR(pg_catalog.?) 'payeeSealedSha256') THEN
        RETURN NEW;
    END IF;
    SELECT * INTO r FROM paydesk.requests q WHERE q.id OPERATOR(pg_catalog.=) NEW.request_id;
    IF NOT FOUND OR r.operation OPERATOR(pg_catalog.<>) 'payout' THEN
        RAISE EXCEPTION 'beneficiary: row %: only a payout pays a payee of the book', NEW.row_no
            USING ERRCODE = 'check_violation';
    END IF;
    given_id := NEW.form OPERATOR(pg_catalog.->>) 'payeeId';
    given_hash := NEW.form OPERATOR(pg_catalog.->>) 'payeeSealedSha256';
    IF pg_catalog.jsonb_typeof(NEW.form OPERATOR(pg_catalog.->) 'payeeId') IS DISTINCT FROM 'number'
       OR given_id OPERATOR(pg_catalog.!~) '^[0-9]{1,18}$'
       OR given_hash IS NULL OR given_hash OPERATOR(pg_catalog.!~) '^[0-9a-f]{64}$' THEN
        RAISE EXCEPTION 'beneficiary: row %: a payee is named by its id and the SHA-256 (hex) of its sealed account', NEW.row_no
            USING ERRCODE = 'check_violation';
    END IF;
    SELECT * INTO b FROM paydesk.beneficiaries x
     WHERE x.id OPERATOR(pg_catalog.=) given_id::bigint
       AND x.mer_no OPERATOR(pg_catalog.=) (SELECT t.mer_no FROM paydesk.team t WHERE t.id OPERATOR(pg_catalog.=) 1);
    IF NOT FOUND THEN
        RAISE EXCEPTION 'beneficiary: row %: payee #% is not in the team''s book (removed?)', NEW.row_no, given_id
            USING ERRCODE = 'check_violation';
    END IF;
    IF b.approved_by IS NULL OR paydesk.payee_approved_late(b.id) THEN
        RAISE EXCEPTION 'beneficiary: row %: payee % waits for another member''s approval; it is not paid before', NEW.row_no, b.nickname
            USING ERRCODE = 'check_violation';
    END IF;
    IF paydesk.payee_seal_hash(b.account_sealed) OPERATOR(pg_catalog.<>) given_hash THEN
        RAISE EXCEPTION 'beneficiary: row %: payee % is not the one chosen (its sealed account differs)', NEW.row_no, b.nickname
            USING ERRCODE = 'check_violation';
    END IF;
    IF pg_catalog.lower(coalesce(NEW.form OPERATOR(pg_catalog.->>) 'kind', '')) OPERATOR(pg_catalog.<>) b.kind THEN
        RAISE EXCEPTION 'kind: row %: payee % is paid by %', NEW.row_no, b.nickname, b.kind
            USING ERRCODE = 'check_violation';
    END IF;
    IF coalesce(NEW.form OPERATOR(pg_catalog.->>) 'clabe', '') OPERATOR(pg_catalog.<>) ''
       OR coalesce(NEW.form OPERATOR(pg_catalog.->>) 'cardNo', '') OPERATOR(pg_catalog.<>) ''
       OR NEW.form OPERATOR(pg_catalog.?) 'sealedCardNo' THEN
        RAISE EXCEPTION 'beneficiary: row %: a row paying payee % carries no account of its own', NEW.row_no, b.nickname
            USING ERRCODE = 'check_violation';
    END IF;
    IF pg_catalog.strpos(NEW.beneficiary, b.account_masked) OPERATOR(pg_catalog.=) 0 THEN
        RAISE EXCEPTION 'beneficiary: row %: the row must name payee %''s account %', NEW.row_no, b.nickname, b.account_masked
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.request_row_payee() FROM PUBLIC;

-- As 0032's, a late self-approval is approved by another member.
CREATE OR REPLACE FUNCTION paydesk.approve_beneficiary(merchant bigint, payee_id bigint, sealed_sha256 text)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE b paydesk.beneficiaries; late boolean;
BEGIN
    IF NOT (pg_catalog.pg_has_role(session_user, 'paydesk_approver', 'MEMBER')
            OR pg_catalog.pg_has_role(session_user, 'paydesk_signer', 'MEMBER')
            OR pg_catalog.pg_has_role(session_user, 'paydesk_admin', 'MEMBER')) THEN
        RAISE EXCEPTION 'beneficiary: only an approver, a signer or an admin approves a payee' USING ERRCODE = '42501';
    END IF;
    IF approve_beneficiary.merchant IS NULL OR approve_beneficiary.payee_id IS NULL
       OR approve_beneficiary.sealed_sha256 IS NULL
       OR approve_beneficiary.sealed_sha256 OPERATOR(pg_catalog.!~) '^[0-9a-f]{64}$' THEN
        RAISE EXCEPTION 'beneficiary: a payee is approved by its id and the SHA-256 (64 hex digits) of its sealed account'
            USING ERRCODE = '22023';
    END IF;
    SELECT * INTO b FROM paydesk.beneficiaries x
     WHERE x.mer_no OPERATOR(pg_catalog.=) approve_beneficiary.merchant
       AND x.id OPERATOR(pg_catalog.=) approve_beneficiary.payee_id
       FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'beneficiary: payee % is no longer in the book (removed, or added again as another payee): look at the book again', approve_beneficiary.payee_id;
    END IF;
    IF paydesk.payee_seal_hash(b.account_sealed) OPERATOR(pg_catalog.<>) approve_beneficiary.sealed_sha256 THEN
        RAISE EXCEPTION 'beneficiary: payee % (id %) holds another account than the one you were shown: look at the book again', b.nickname, b.id;
    END IF;
    late := paydesk.payee_approved_late(b.id);
    IF b.approved_by IS NOT NULL AND NOT late THEN
        RAISE EXCEPTION 'nickname: payee % is already approved', b.nickname;
    END IF;
    IF b.added_by OPERATOR(pg_catalog.=) session_user::pg_catalog.text THEN
        RAISE EXCEPTION 'beneficiary: four eyes: payee % was added by you; another member approves it', b.nickname
            USING ERRCODE = '42501';
    END IF;
    -- A late self-approval (below) becomes a payee that needed, and got, another's.
    UPDATE paydesk.beneficiaries SET approved_by = session_user, approved_at = pg_catalog.now(),
           needs_approval = needs_approval OR late
     WHERE id OPERATOR(pg_catalog.=) b.id;
    PERFORM paydesk.audit('team.payee.approve',
        pg_catalog.format('id=%s nickname=%s account=%s added_by=%s', b.id, b.nickname, b.account_masked, b.added_by), 'ok');
END $$;
REVOKE ALL ON FUNCTION paydesk.approve_beneficiary(bigint, bigint, text) FROM PUBLIC;
