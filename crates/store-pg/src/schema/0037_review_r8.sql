-- What the eighth hostile review found in 0035 (notes: review-r8, R8-1), attacked as the
-- signer who would use it with plain SQL first (tests/team/team_review_r7.rs).
--
-- R8-1. 0035 let a payout's new entry name its amount as `sourceAmount` or `amount`
-- (and its currency as either key), where the day's sum reads `sourceAmount` and
-- `currencyCode` only (`paydesk_store::journal::day_sum`): a signer planted a pending
-- entry under an approved row's number with the real fingerprint and
-- `{"currency":"MXN","amount":"100000"}`; the honest worker sent the row's real amount
-- through it and the day's sum counted nothing. Both payouts the desk sends (v2's CLABE
-- payout and v1's card payout) name `sourceAmount` and `currencyCode`: a payout's new
-- entry must name both, the amount positive, the currency not empty. Everything else
-- of 0035's rule is restated as it was (CREATE OR REPLACE restates the function whole).
CREATE OR REPLACE FUNCTION paydesk.journal_written() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE now_ms bigint := (pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::bigint;
    ahead bigint := now_ms OPERATOR(pg_catalog.+) 300000; amount numeric; body jsonb;
BEGIN
    IF pg_catalog.pg_has_role(current_user,
           (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) 'paydesk.journal'::pg_catalog.regclass),
           'USAGE') THEN
        RETURN NEW;
    END IF;
    IF NEW.status IS DISTINCT FROM 'pending' AND NEW.status IS DISTINCT FROM 'sending' THEN
        RAISE EXCEPTION 'status: a journal entry is written pending or sending (its outcome is what a send finds), not %', NEW.status
            USING ERRCODE = '42501';
    END IF;
    IF coalesce(NEW.fingerprint, '') OPERATOR(pg_catalog.=) '' THEN
        RAISE EXCEPTION 'fingerprint: a journal entry carries its request''s fingerprint'
            USING ERRCODE = '42501';
    END IF;
    IF NEW.operation OPERATOR(pg_catalog.=) ANY (ARRAY['v2.payout', 'v1.payout']) THEN
        BEGIN
            body := NEW.request::pg_catalog.jsonb;
            amount := (body OPERATOR(pg_catalog.->>) 'sourceAmount')::pg_catalog.numeric;
            IF coalesce(pg_catalog.btrim(body OPERATOR(pg_catalog.->>) 'currencyCode'), '') OPERATOR(pg_catalog.=) '' THEN
                amount := NULL;
            END IF;
        EXCEPTION WHEN others THEN
            amount := NULL;
        END;
        IF amount IS NULL OR amount OPERATOR(pg_catalog.<=) 0 THEN
            RAISE EXCEPTION 'sourceAmount: a payout''s journal entry names the positive amount it sends (sourceAmount) and its currency (currencyCode)'
                USING ERRCODE = '42501';
        END IF;
    END IF;
    IF NEW.created_at OPERATOR(pg_catalog.>) ahead OR NEW.updated_at OPERATOR(pg_catalog.>) ahead
       OR NEW.sent_at OPERATOR(pg_catalog.>) ahead THEN
        RAISE EXCEPTION 'clock: this desk''s clock is more than five minutes ahead of the team database''s: set it right before sending'
            USING ERRCODE = '42501';
    END IF;
    NEW.created_at := GREATEST(NEW.created_at, (now_ms OPERATOR(pg_catalog.-) 300000));
    NEW.updated_at := GREATEST(NEW.updated_at, NEW.created_at);
    IF NEW.sent_at IS NOT NULL THEN
        NEW.sent_at := GREATEST(NEW.sent_at, NEW.created_at);
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.journal_written() FROM PUBLIC;
