-- What the tenth hostile review found in the journal's approval check, the request
-- rows' rules and the owner's void (notes: review-r10, R10-1, R10-2, R10-5, R10-3 item
-- 1, R10-9, R10-10, R10-11), each attacked as the member who would use it with plain
-- SQL (tests/team/team_review_r10.rs). As 0028/0035, every function pins its
-- search_path (pg_temp last) and is revoked from PUBLIC; the definer ones take a lock
-- bound.

-- R10-2 + R10-5: who sent an entry, and whether its refusal is that sender's word. Only
-- the trigger below writes them (a member's value is overwritten): `sent_claim` is the
-- claim the entry was sent under (an INSERT `sending`, or `pending -> sending`, the
-- desk's Resend), `refused_on_send` is true once that very claim moved it
-- `sending -> rejected` (the desk's `finish` on the gateway's refusal of its own send).
-- The entries refused before this file are taken as their senders' refusals (the rules
-- they were written under allowed nothing else a desk does); a refusal the database's
-- owner writes by hand counts as one too.
ALTER TABLE paydesk.journal ADD COLUMN sent_claim text;
ALTER TABLE paydesk.journal ADD COLUMN refused_on_send boolean NOT NULL DEFAULT false;
UPDATE paydesk.journal SET refused_on_send = true WHERE status = 'rejected' AND NOT voided;

-- For a member (not the database's owner, whose repairs set their own entry):
-- * `unknown -> rejected` is refused: an entry whose answer was lost may have been paid;
--   only the owner's journal_void (after checking the merchant's order list) refuses it
--   (R10-2: a signer refused an unknown payout, then its row, and its maker requested it
--   again; R10-5: in-flight payouts taken out of the day's sum);
-- * `sending -> rejected` only under the claim that sent it (`sent_claim`), this
--   session's own: a second signer taking a dead desk's claim refuses nothing it did
--   not send;
-- * `updated_at` never goes back, and never more than five minutes ahead of the
--   database's clock (R10-11: the duplicate guard's 24 h window reads it; a signer moved
--   an accepted payout out of it).
-- Named to fire after journal_sends_kept (whose claim rules hold first) and before
-- journal_x_payout_approved.
CREATE FUNCTION paydesk.journal_w_sent_claim() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE now_ms bigint := (pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::bigint;
    mine text := 'pg:' OPERATOR(pg_catalog.||) pg_catalog.pg_backend_pid()::pg_catalog.text OPERATOR(pg_catalog.||) ':';
BEGIN
    IF paydesk.journal_owner_session() THEN
        -- The owner's repairs: a refusal the owner writes is the owner's word.
        IF TG_OP OPERATOR(pg_catalog.=) 'UPDATE' AND NEW.status OPERATOR(pg_catalog.=) 'rejected'
           AND OLD.status IS DISTINCT FROM 'rejected' THEN
            NEW.refused_on_send := true;
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP OPERATOR(pg_catalog.=) 'INSERT' THEN
        NEW.refused_on_send := false;
        NEW.sent_claim := CASE WHEN NEW.status OPERATOR(pg_catalog.=) 'sending' THEN NEW.claimed_by END;
        RETURN NEW;
    END IF;
    NEW.sent_claim := OLD.sent_claim;
    NEW.refused_on_send := OLD.refused_on_send;
    NEW.updated_at := GREATEST(OLD.updated_at, LEAST(NEW.updated_at, now_ms OPERATOR(pg_catalog.+) 300000));
    IF NEW.status IS NOT DISTINCT FROM OLD.status THEN
        RETURN NEW;
    END IF;
    IF OLD.status OPERATOR(pg_catalog.=) 'pending' AND NEW.status OPERATOR(pg_catalog.=) 'sending' THEN
        NEW.sent_claim := NEW.claimed_by;
    ELSIF NEW.status OPERATOR(pg_catalog.=) 'rejected' AND OLD.status OPERATOR(pg_catalog.=) 'unknown' THEN
        RAISE EXCEPTION 'refusal: entry % is unknown (its answer was lost, its money may have left): only the team database''s owner refuses it, with journal_void after checking the merchant''s order list', OLD.id
            USING ERRCODE = '42501';
    ELSIF NEW.status OPERATOR(pg_catalog.=) 'rejected' AND OLD.status OPERATOR(pg_catalog.=) 'sending' THEN
        IF OLD.sent_claim IS NULL OR OLD.claimed_by IS DISTINCT FROM OLD.sent_claim
           OR pg_catalog.left(OLD.claimed_by, pg_catalog.length(mine)) IS DISTINCT FROM mine THEN
            RAISE EXCEPTION 'refusal: entry % is refused only by the claim that sent it (%), on the gateway''s answer to that send', OLD.id, coalesce(OLD.sent_claim, 'none')
                USING ERRCODE = '42501';
        END IF;
        NEW.refused_on_send := true;
    ELSIF OLD.status OPERATOR(pg_catalog.=) 'rejected' THEN
        NEW.refused_on_send := false;
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.journal_w_sent_claim() FROM PUBLIC;
CREATE TRIGGER journal_w_sent_claim BEFORE INSERT OR UPDATE ON paydesk.journal
    FOR EACH ROW EXECUTE FUNCTION paydesk.journal_w_sent_claim();

-- R10-1: the approval check locks the row it reads (FOR SHARE), so a journaling and a
-- concurrent outcome of the row serialise: an outcome written first (uncommitted) makes
-- the journaling wait, then see the row's new status and refuse; a journaling first
-- makes the outcome wait until the entry is committed, and the row's rule (below) then
-- sees it. VOLATILE (it locks). Otherwise as 0040.
CREATE OR REPLACE FUNCTION paydesk.journal_payout_approved(number text, request text) RETURNS boolean
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE body jsonb; sent numeric; cur text;
BEGIN
    BEGIN
        body := journal_payout_approved.request::pg_catalog.jsonb;
        sent := (body OPERATOR(pg_catalog.->>) 'sourceAmount')::pg_catalog.numeric;
        cur := pg_catalog.upper(pg_catalog.btrim(body OPERATOR(pg_catalog.->>) 'currencyCode'));
    EXCEPTION WHEN others THEN
        RETURN false;
    END;
    PERFORM 1 FROM paydesk.request_rows rr
      JOIN paydesk.requests q ON q.id OPERATOR(pg_catalog.=) rr.request_id
     WHERE rr.mer_order_no OPERATOR(pg_catalog.=) journal_payout_approved.number
       AND rr.live
       AND rr.status OPERATOR(pg_catalog.=) ANY (ARRAY['waiting', 'unknown'])
       AND q.operation OPERATOR(pg_catalog.=) 'payout'
       AND q.state OPERATOR(pg_catalog.=) 'executing'
       AND q.claimed_by OPERATOR(pg_catalog.=) session_user::pg_catalog.text
       AND rr.amount OPERATOR(pg_catalog.=) sent
       AND q.currency OPERATOR(pg_catalog.=) cur
       FOR SHARE OF rr;
    RETURN FOUND;
END $$;
REVOKE ALL ON FUNCTION paydesk.journal_payout_approved(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.journal_payout_approved(text, text) TO paydesk_signer;

-- 0040's row rule, now:
-- * R10-3 item 1: the claimer check comes first: no other signer sets a row's trade
--   number (the "blank to set" branch was open to every signer, and the worker's real
--   trade number was then refused, its request stranded);
-- * R10-1: a member's outcome is written at READ COMMITTED only, so the journal read
--   below (after waiting for a journaling's lock on the row) sees the entry committed
--   meanwhile (a REPEATABLE READ snapshot taken before it would not);
-- * R10-2: a row is refused only when an entry under its number is refused by the claim
--   that sent it (`refused_on_send`) or voided by the database's owner.
-- The database's owner is not held (a repair). Otherwise as 0040.
CREATE OR REPLACE FUNCTION paydesk.row_moves() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE q record; ops text[]; entries text[]; disagrees boolean; blank_to_set boolean; owner boolean := paydesk.journal_owner_session();
BEGIN
    IF (NEW.request_id, NEW.row_no, NEW.mer_order_no, NEW.amount, NEW.form, NEW.beneficiary)
       IS DISTINCT FROM (OLD.request_id, OLD.row_no, OLD.mer_order_no, OLD.amount, OLD.form, OLD.beneficiary) THEN
        RAISE EXCEPTION 'what a request row asks never changes';
    END IF;
    -- A set trade number is kept when no new one comes (an outcome without one).
    IF OLD.trade_no IS NOT NULL AND NEW.trade_no IS NULL THEN
        NEW.trade_no := OLD.trade_no;
    END IF;
    IF OLD.trade_no IS NOT NULL AND NEW.trade_no IS DISTINCT FROM OLD.trade_no THEN
        RAISE EXCEPTION 'request % row %: its trade number % is set, and never changes', OLD.request_id, OLD.row_no, OLD.trade_no;
    END IF;
    IF NEW.live IS DISTINCT FROM OLD.live THEN
        IF NOT (OLD.live AND NOT NEW.live)
           OR (NEW.status, NEW.trade_no, NEW.message) IS DISTINCT FROM (OLD.status, OLD.trade_no, OLD.message)
           OR OLD.status OPERATOR(pg_catalog.<>) 'waiting'
           OR NOT EXISTS (SELECT 1 FROM paydesk.requests WHERE id OPERATOR(pg_catalog.=) OLD.request_id
                                                          AND state OPERATOR(pg_catalog.=) 'rejected') THEN
            RAISE EXCEPTION 'request % row %: a number is freed only by its request''s rejection, and never taken back',
                OLD.request_id, OLD.row_no;
        END IF;
        RETURN NEW;
    END IF;
    SELECT r.operation, r.state, r.claimed_by INTO q FROM paydesk.requests r
     WHERE r.id OPERATOR(pg_catalog.=) OLD.request_id;
    -- Blank to set, alone: the order recorded for a row sent (its request executing or
    -- done), never for a rejected or failed row.
    blank_to_set := coalesce(OLD.trade_no IS NULL AND NEW.trade_no IS NOT NULL AND OLD.live
       AND (NEW.status, NEW.message) IS NOT DISTINCT FROM (OLD.status, OLD.message)
       AND OLD.status IS NOT NULL AND OLD.status OPERATOR(pg_catalog.<>) ALL (ARRAY['rejected', 'failed'])
       AND q.state OPERATOR(pg_catalog.=) ANY (ARRAY['executing', 'done']), false);
    IF q.state IS DISTINCT FROM 'executing' AND NOT blank_to_set THEN
        RAISE EXCEPTION 'a row''s outcome is written only while its request is executing';
    END IF;
    IF NOT owner AND q.claimed_by IS DISTINCT FROM session_user::pg_catalog.text THEN
        RAISE EXCEPTION 'request % row %: a row''s outcome is written only by the signer executing its request (%), not by %',
            OLD.request_id, OLD.row_no, coalesce(q.claimed_by, 'nobody'), session_user
            USING ERRCODE = '42501';
    END IF;
    IF blank_to_set THEN
        RETURN NEW;
    END IF;
    IF NOT owner THEN
        IF OLD.status OPERATOR(pg_catalog.<>) ALL (ARRAY['waiting', 'unknown'])
           AND (NEW.status, NEW.message, NEW.trade_no) IS DISTINCT FROM (OLD.status, OLD.message, OLD.trade_no) THEN
            RAISE EXCEPTION 'request % row %: its outcome % is final, and never changes', OLD.request_id, OLD.row_no, OLD.status
                USING ERRCODE = '42501';
        END IF;
        IF NEW.status IS DISTINCT FROM OLD.status
           AND NEW.status OPERATOR(pg_catalog.=) ANY (ARRAY['accepted', 'rejected', 'failed']) THEN
            IF pg_catalog.current_setting('transaction_isolation') OPERATOR(pg_catalog.<>) 'read committed' THEN
                RAISE EXCEPTION 'request % row %: a row''s outcome is written at READ COMMITTED (it must see the journal as committed now), not %',
                    OLD.request_id, OLD.row_no, pg_catalog.current_setting('transaction_isolation')
                    USING ERRCODE = '42501';
            END IF;
            ops := CASE q.operation
                       WHEN 'payout' THEN ARRAY['v2.payout', 'v1.payout']
                       WHEN 'payin' THEN ARRAY['v2.payment', 'v1.payment', 'v1.payment.vn_bank']
                       WHEN 'top_up' THEN ARRAY['v2.card.topUp']
                       WHEN 'withdraw' THEN ARRAY['v1.card.withdraw']
                       ELSE ARRAY[]::text[] END;
            -- A refusal counts as `rejected` only when its sender gave it or the owner
            -- voided it; any other refused entry reads `rejected?` (agrees with no
            -- row's refusal, and with a failure: nothing of it is known to have left
            -- that its sender has not said).
            SELECT pg_catalog.array_agg(CASE WHEN j.status OPERATOR(pg_catalog.=) 'rejected'
                                              AND NOT (j.refused_on_send OR j.voided)
                                             THEN 'rejected?' ELSE j.status END) INTO entries
              FROM paydesk.journal j
             WHERE j.mer_order_no OPERATOR(pg_catalog.=) OLD.mer_order_no
               AND j.operation OPERATOR(pg_catalog.=) ANY (ops);
            -- (An IF's condition ends at its first THEN: the CASE is a value of its own.)
            disagrees := CASE NEW.status
                   WHEN 'accepted' THEN NOT ('accepted' OPERATOR(pg_catalog.=) ANY (entries))
                   WHEN 'rejected' THEN NOT ('rejected' OPERATOR(pg_catalog.=) ANY (entries))
                                        OR entries OPERATOR(pg_catalog.&&) ARRAY['sending', 'unknown', 'accepted']
                   ELSE entries OPERATOR(pg_catalog.&&) ARRAY['sending', 'unknown', 'accepted'] END;
            IF entries IS NOT NULL AND disagrees THEN
                RAISE EXCEPTION 'request % row %: % is not what its journal entry under % says (%)',
                    OLD.request_id, OLD.row_no, NEW.status, OLD.mer_order_no, pg_catalog.array_to_string(entries, ', ')
                    USING ERRCODE = '42501';
            END IF;
        END IF;
    END IF;
    NEW.updated_at := pg_catalog.now();
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.row_moves() FROM PUBLIC;

-- R10-10: a request is done only once no row of it is waiting or unknown (what the
-- signer's worker does: a request with a row left unknown is given back, `finish(done
-- = false)`); a row of a done request never gets an outcome again, so a signer marking
-- it done by hand froze an unknown payout for good. The database's owner is not held.
-- Otherwise as 0022.
CREATE OR REPLACE FUNCTION paydesk.request_moves() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE approvers integer; me_start timestamptz; mine boolean;
BEGIN
    IF (NEW.operation, NEW.currency, NEW.total, NEW.row_count, NEW.summary, NEW.source,
        NEW.maker, NEW.approvals_needed, NEW.created_at)
       IS DISTINCT FROM
       (OLD.operation, OLD.currency, OLD.total, OLD.row_count, OLD.summary, OLD.source,
        OLD.maker, OLD.approvals_needed, OLD.created_at) THEN
        RAISE EXCEPTION 'request %: what was requested never changes', OLD.id;
    END IF;
    IF NEW.state OPERATOR(pg_catalog.=) OLD.state AND NEW.state OPERATOR(pg_catalog.<>) 'executing' THEN
        IF (NEW.claimed_by, NEW.claimed_pid, NEW.claimed_backend_start, NEW.finished_at, NEW.outcome, NEW.decided_at)
           IS DISTINCT FROM (OLD.claimed_by, OLD.claimed_pid, OLD.claimed_backend_start, OLD.finished_at, OLD.outcome, OLD.decided_at) THEN
            RAISE EXCEPTION 'request %: a % request does not change', OLD.id, OLD.state;
        END IF;
        RETURN NEW;
    END IF;
    -- An executing request held by another live worker is that worker's to move.
    IF OLD.state OPERATOR(pg_catalog.=) 'executing' AND OLD.claimed_pid IS NOT NULL THEN
        me_start := paydesk.own_backend_start();
        mine := OLD.claimed_pid OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid()
            AND (OLD.claimed_backend_start IS NULL OR me_start IS NULL
                 OR OLD.claimed_backend_start OPERATOR(pg_catalog.=) me_start);
        IF NOT mine AND paydesk.claim_alive(OLD.claimed_pid, OLD.claimed_backend_start, OLD.claimed_by) THEN
            RAISE EXCEPTION 'request %: held by % (process %), whose worker still runs; it is taken over once that worker is gone',
                OLD.id, OLD.claimed_by, OLD.claimed_pid;
        END IF;
    END IF;
    SELECT pg_catalog.count(*) INTO approvers FROM paydesk.decisions d
     WHERE d.request_id OPERATOR(pg_catalog.=) OLD.id AND d.decision OPERATOR(pg_catalog.=) 'approve'
       AND d.member OPERATOR(pg_catalog.<>) OLD.maker;
    IF OLD.state OPERATOR(pg_catalog.=) 'waiting' AND NEW.state OPERATOR(pg_catalog.=) 'approved' THEN
        IF approvers OPERATOR(pg_catalog.<) OLD.approvals_needed THEN
            RAISE EXCEPTION 'request %: four eyes: % of % approvals', OLD.id, approvers, OLD.approvals_needed;
        END IF;
        NEW.decided_at := pg_catalog.now();
    ELSIF OLD.state OPERATOR(pg_catalog.=) 'waiting' AND NEW.state OPERATOR(pg_catalog.=) 'rejected' THEN
        IF NOT EXISTS (SELECT 1 FROM paydesk.decisions d WHERE d.request_id OPERATOR(pg_catalog.=) OLD.id
                          AND d.decision OPERATOR(pg_catalog.=) 'reject') THEN
            RAISE EXCEPTION 'request %: rejected only by a rejection with its reason', OLD.id;
        END IF;
        NEW.decided_at := pg_catalog.now();
    ELSIF OLD.state OPERATOR(pg_catalog.=) ANY (ARRAY['approved', 'executing']) AND NEW.state OPERATOR(pg_catalog.=) 'executing' THEN
        IF approvers OPERATOR(pg_catalog.<) OLD.approvals_needed THEN
            RAISE EXCEPTION 'request %: four eyes: % of % approvals', OLD.id, approvers, OLD.approvals_needed;
        END IF;
        -- A claim is this session's: its process number and start time, whatever the
        -- signer wrote. Given back (no process), it names nobody's.
        IF NEW.claimed_pid IS NOT NULL THEN
            NEW.claimed_pid := pg_catalog.pg_backend_pid();
            NEW.claimed_backend_start := coalesce(me_start, paydesk.own_backend_start());
            NEW.claimed_by := session_user;
            NEW.claimed_at := pg_catalog.now();
        ELSE
            NEW.claimed_backend_start := NULL;
        END IF;
    ELSIF OLD.state OPERATOR(pg_catalog.=) 'executing' AND NEW.state OPERATOR(pg_catalog.=) 'done' THEN
        IF NOT paydesk.journal_owner_session()
           AND EXISTS (SELECT 1 FROM paydesk.request_rows rr WHERE rr.request_id OPERATOR(pg_catalog.=) OLD.id
                          AND rr.live AND rr.status OPERATOR(pg_catalog.=) ANY (ARRAY['waiting', 'unknown'])) THEN
            RAISE EXCEPTION 'request %: done only once every row has its outcome (a row is still waiting or unknown): given back instead, it is taken up again', OLD.id
                USING ERRCODE = '42501';
        END IF;
        NEW.finished_at := pg_catalog.now();
    ELSE
        RAISE EXCEPTION 'request %: cannot go from % to %', OLD.id, OLD.state, NEW.state;
    END IF;
    IF NEW.state OPERATOR(pg_catalog.<>) OLD.state THEN
        PERFORM paydesk.audit('team.request.' OPERATOR(pg_catalog.||) NEW.state, pg_catalog.format('request=%s', OLD.id),
            coalesce(NEW.outcome, NEW.state));
        PERFORM pg_catalog.pg_notify('paydesk_requests', OLD.id::pg_catalog.text);
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.request_moves() FROM PUBLIC;

-- R10-9: the owner's void asks for `force` for an accepted entry too (a card top-up is
-- accepted with no trade number: its money has left; voided, its open row read the void
-- as a refusal and was requested again). Otherwise as 0038.
CREATE OR REPLACE FUNCTION paydesk.journal_void(entry bigint, reason text, force boolean DEFAULT false) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE e paydesk.journal;
BEGIN
    IF coalesce(pg_catalog.btrim(journal_void.reason), '') OPERATOR(pg_catalog.=) '' THEN
        RAISE EXCEPTION 'reason: say why the entry is voided' USING ERRCODE = 'check_violation';
    END IF;
    SELECT * INTO e FROM paydesk.journal j WHERE j.id OPERATOR(pg_catalog.=) journal_void.entry FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'entry: no journal entry %', journal_void.entry;
    END IF;
    IF NOT coalesce(journal_void.force, false)
       AND (e.trade_no IS NOT NULL OR e.status OPERATOR(pg_catalog.=) ANY (ARRAY['sending', 'unknown', 'accepted'])) THEN
        RAISE EXCEPTION 'entry: journal entry % is % (trade number %): its money may have left; check the merchant''s order list, then void it with force => true (or put its send time back with journal_reset_sent_at)',
            e.id, e.status, coalesce(e.trade_no, 'none')
            USING ERRCODE = 'check_violation';
    END IF;
    PERFORM pg_catalog.set_config('paydesk.voiding', e.id::text, true);
    UPDATE paydesk.journal SET status = 'rejected', voided = true,
           sent_at = LEAST(coalesce(sent_at, created_at), created_at),
           resolution = pg_catalog.left('voided by the database''s owner: ' OPERATOR(pg_catalog.||) pg_catalog.btrim(journal_void.reason), 500),
           claimed_by = NULL, claimed_until = NULL, next_check_at = NULL
     WHERE id OPERATOR(pg_catalog.=) e.id;
    PERFORM pg_catalog.set_config('paydesk.voiding', '', true);
    PERFORM paydesk.audit('team.journal.void',
        pg_catalog.format('entry=%s operation=%s number=%s was=%s trade=%s force=%s', e.id, e.operation, e.mer_order_no,
                          e.status, coalesce(e.trade_no, '-'), coalesce(journal_void.force, false)),
        pg_catalog.left(pg_catalog.btrim(journal_void.reason), 200));
END $$;
REVOKE ALL ON FUNCTION paydesk.journal_void(bigint, text, boolean) FROM PUBLIC;
