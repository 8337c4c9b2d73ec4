-- What the ninth hostile review found about the request rows and the journal's approval
-- check (notes: review-r9, R9-5 and R9-8), attacked as a signer with plain SQL
-- (tests/team/team_review_r9.rs). As 0028/0035, every function pins its search_path
-- (pg_temp last) and takes a lock bound; both are replaced in place (no new object).
--
-- R9-5. 0039 let a payout be journaled (or a queued one taken up for a send) under the
-- number of any row of an executing request claimed by this login, whatever the row had
-- come to: a row the worker recorded failed (held beyond the balance, over a limit,
-- refused as not approved), with no journal entry, was payable again from the same claim
-- or a later one, after its maker had requested it again under a new number (money
-- twice). Now the row must still be open: waiting or unknown, never accepted, rejected
-- or failed.
CREATE OR REPLACE FUNCTION paydesk.journal_payout_approved(number text, request text) RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE body jsonb; sent numeric; cur text;
BEGIN
    BEGIN
        body := journal_payout_approved.request::pg_catalog.jsonb;
        sent := (body OPERATOR(pg_catalog.->>) 'sourceAmount')::pg_catalog.numeric;
        cur := pg_catalog.upper(pg_catalog.btrim(body OPERATOR(pg_catalog.->>) 'currencyCode'));
    EXCEPTION WHEN others THEN
        RETURN false;
    END;
    RETURN EXISTS (
        SELECT 1 FROM paydesk.request_rows rr
          JOIN paydesk.requests q ON q.id OPERATOR(pg_catalog.=) rr.request_id
         WHERE rr.mer_order_no OPERATOR(pg_catalog.=) journal_payout_approved.number
           AND rr.live
           AND rr.status OPERATOR(pg_catalog.=) ANY (ARRAY['waiting', 'unknown'])
           AND q.operation OPERATOR(pg_catalog.=) 'payout'
           AND q.state OPERATOR(pg_catalog.=) 'executing'
           AND q.claimed_by OPERATOR(pg_catalog.=) session_user::pg_catalog.text
           AND rr.amount OPERATOR(pg_catalog.=) sent
           AND q.currency OPERATOR(pg_catalog.=) cur);
END $$;
REVOKE ALL ON FUNCTION paydesk.journal_payout_approved(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.journal_payout_approved(text, text) TO paydesk_signer;

-- R9-8. A row's outcome had no rule but "its request is executing" (0015), and every
-- signer may UPDATE any row (`rows_execute USING (true)`): a second signer flipped a
-- row another signer's worker had paid from accepted to rejected, and its maker could
-- request it again (money twice). What the signer's worker writes (crates/team
-- `execute_next`, one statement per group of rows, `row_outcomes`) is kept: an open row
-- (waiting or unknown) of the request it claimed, to accepted (its journal entry
-- accepted), rejected (refused), failed (nothing sent: no entry, or one still pending)
-- or unknown. Now, besides 0015's rules (a request's fields, trade numbers, the freed
-- numbers, blank to set):
-- * only the login that claimed the request writes its rows' outcomes;
-- * a row accepted, rejected or failed is final: its status and message never change;
-- * the outcome agrees with the row's journal entries (of its request's operation):
--   rejected or failed never while an entry's money may have left (sending, unknown,
--   accepted), accepted only when an entry is accepted, rejected only when one is
--   rejected (a row with no entry at all is the rule's only gap: nothing was journaled
--   under its number, so nothing of it can have left).
-- The database's owner is not held (a repair).
CREATE OR REPLACE FUNCTION paydesk.row_moves() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE q record; ops text[]; entries text[]; disagrees boolean;
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
    -- Blank to set, alone: the order recorded for a row sent (its request executing or
    -- done), never for a rejected or failed row.
    IF OLD.trade_no IS NULL AND NEW.trade_no IS NOT NULL AND OLD.live
       AND (NEW.status, NEW.message) IS NOT DISTINCT FROM (OLD.status, OLD.message)
       AND OLD.status IS NOT NULL AND OLD.status OPERATOR(pg_catalog.<>) ALL (ARRAY['rejected', 'failed'])
       AND EXISTS (SELECT 1 FROM paydesk.requests WHERE id OPERATOR(pg_catalog.=) OLD.request_id
                      AND state OPERATOR(pg_catalog.=) ANY (ARRAY['executing', 'done'])) THEN
        RETURN NEW;
    END IF;
    SELECT r.operation, r.state, r.claimed_by INTO q FROM paydesk.requests r
     WHERE r.id OPERATOR(pg_catalog.=) OLD.request_id;
    IF q.state IS DISTINCT FROM 'executing' THEN
        RAISE EXCEPTION 'a row''s outcome is written only while its request is executing';
    END IF;
    IF NOT paydesk.journal_owner_session() THEN
        IF q.claimed_by IS DISTINCT FROM session_user::pg_catalog.text THEN
            RAISE EXCEPTION 'request % row %: a row''s outcome is written only by the signer executing its request (%), not by %',
                OLD.request_id, OLD.row_no, coalesce(q.claimed_by, 'nobody'), session_user
                USING ERRCODE = '42501';
        END IF;
        IF OLD.status OPERATOR(pg_catalog.<>) ALL (ARRAY['waiting', 'unknown'])
           AND (NEW.status, NEW.message, NEW.trade_no) IS DISTINCT FROM (OLD.status, OLD.message, OLD.trade_no) THEN
            RAISE EXCEPTION 'request % row %: its outcome % is final, and never changes', OLD.request_id, OLD.row_no, OLD.status
                USING ERRCODE = '42501';
        END IF;
        IF NEW.status IS DISTINCT FROM OLD.status
           AND NEW.status OPERATOR(pg_catalog.=) ANY (ARRAY['accepted', 'rejected', 'failed']) THEN
            ops := CASE q.operation
                       WHEN 'payout' THEN ARRAY['v2.payout', 'v1.payout']
                       WHEN 'payin' THEN ARRAY['v2.payment', 'v1.payment', 'v1.payment.vn_bank']
                       WHEN 'top_up' THEN ARRAY['v2.card.topUp']
                       WHEN 'withdraw' THEN ARRAY['v1.card.withdraw']
                       ELSE ARRAY[]::text[] END;
            SELECT pg_catalog.array_agg(j.status) INTO entries FROM paydesk.journal j
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
