-- What the seventh hostile review found in 0034 (notes: review-r7, R7-1 and R7-3), each
-- attacked as the signer who would use it with plain SQL first
-- (tests/team/team_review_r7.rs). Every function here pins its search_path (pg_temp
-- last) and is revoked from PUBLIC; the definer one takes a lock bound.

-- R7-1 (0001's INSERT grant, 0034 held UPDATE only). A signer wrote an entry by hand
-- that the day's sum (journal.rs `begin_within`) reads: a payout of -1e9 (every
-- worker's day limit never bound again), a planted pending entry of 0.01 under an
-- approved row's number with no fingerprint (the worker sent the row's real amount
-- through it and the sum kept reading 0.01), or times from a desk clock set back a day
-- or on in the future. A new entry is now what the desk's journal writes (begin:
-- `sending`, queue: `pending`, both with the request's fingerprint):
-- * its status is pending or sending (an outcome is found by a send, never written);
-- * it carries a fingerprint (a planted entry without one is not taken up for a send);
-- * a payout's request names a positive amount (`sourceAmount`, or `amount`);
-- * its times are the writer's desk's, but never before the database's clock less five
--   minutes (a send written "yesterday" counts today) and never after it plus five (a
--   desk running that far ahead journals nothing, so sends nothing: moving its time
--   earlier would shorten the grace a lookup gives a send, `NotListed::SafeToSend`).
-- The database's owner (who may change the schema anyway) is not held.
CREATE FUNCTION paydesk.journal_written() RETURNS trigger
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
            amount := coalesce(body OPERATOR(pg_catalog.->>) 'sourceAmount',
                               body OPERATOR(pg_catalog.->>) 'amount')::pg_catalog.numeric;
        EXCEPTION WHEN others THEN
            amount := NULL;
        END;
        IF amount IS NULL OR amount OPERATOR(pg_catalog.<=) 0 THEN
            RAISE EXCEPTION 'sourceAmount: a payout''s journal entry names the positive amount it sends'
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
CREATE TRIGGER journal_written BEFORE INSERT ON paydesk.journal
    FOR EACH ROW EXECUTE FUNCTION paydesk.journal_written();

-- R7-3 (0034). `sent_at` only moves later, and an accepted entry is final: a signer
-- who set `sent_at` far into the future made every accepted payout count in every
-- future day, and nobody could undo it. Now a send time is never set beyond the
-- database's clock plus five minutes (the same bound as a new entry's), and the
-- database's owner voids an entry planted before this (`journal_void`, below). As
-- 0034's otherwise.
CREATE OR REPLACE FUNCTION paydesk.journal_sends_kept() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, paydesk, pg_temp AS $$
BEGIN
    -- The owner's repair of one entry (journal_void sets this for its own statement;
    -- a member may set the setting, but never runs as the owner).
    IF pg_catalog.current_setting('paydesk.voiding', true) IS NOT DISTINCT FROM OLD.id::text
       AND pg_catalog.pg_has_role(current_user,
           (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) 'paydesk.journal'::pg_catalog.regclass),
           'USAGE') THEN
        RETURN NEW;
    END IF;
    IF (NEW.mer_no, NEW.operation, NEW.mer_order_no, NEW.request, NEW.created_at)
       IS DISTINCT FROM (OLD.mer_no, OLD.operation, OLD.mer_order_no, OLD.request, OLD.created_at) THEN
        RAISE EXCEPTION 'journal: entry %''s merchant, operation, number, request and time written are kept as written', OLD.id
            USING ERRCODE = '42501';
    END IF;
    IF NEW.sent_at IS DISTINCT FROM OLD.sent_at
       AND NEW.sent_at OPERATOR(pg_catalog.>) ((pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::bigint OPERATOR(pg_catalog.+) 300000) THEN
        RAISE EXCEPTION 'clock: entry %''s send time is more than five minutes ahead of the team database''s clock: set this desk''s clock right before sending', OLD.id
            USING ERRCODE = '42501';
    END IF;
    NEW.sent_at := GREATEST(NEW.sent_at, OLD.sent_at,
        CASE WHEN NEW.sent_at IS NOT NULL OR OLD.sent_at IS NOT NULL THEN OLD.created_at END);
    IF NEW.status IS DISTINCT FROM OLD.status
       AND NOT (OLD.status OPERATOR(pg_catalog.=) ANY (ARRAY['pending', 'sending', 'unknown'])
                OR (OLD.status OPERATOR(pg_catalog.=) 'rejected' AND NEW.status OPERATOR(pg_catalog.=) 'accepted')) THEN
        RAISE EXCEPTION 'status: entry % is %, which does not become %: an accepted send is final, a refused one only turns out accepted',
            OLD.id, OLD.status, NEW.status
            USING ERRCODE = '42501';
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.journal_sends_kept() FROM PUBLIC;

-- The owner's repair: an entry a member planted or poisoned (a send time far ahead, an
-- "accepted" payout that never left) no longer counts in any day's sum: it is marked
-- refused, sent when it was written, with the owner's reason, and audited. Nobody else
-- may call it (not granted; revoked from PUBLIC). The money, if any left, is the
-- gateway's to tell: the owner voids only what the merchant's order list disproves.
CREATE FUNCTION paydesk.journal_void(entry bigint, reason text) RETURNS void
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
    PERFORM pg_catalog.set_config('paydesk.voiding', e.id::text, true);
    UPDATE paydesk.journal SET status = 'rejected',
           sent_at = LEAST(coalesce(sent_at, created_at), created_at),
           resolution = pg_catalog.left('voided by the database''s owner: ' OPERATOR(pg_catalog.||) pg_catalog.btrim(journal_void.reason), 500),
           claimed_by = NULL, claimed_until = NULL, next_check_at = NULL
     WHERE id OPERATOR(pg_catalog.=) e.id;
    PERFORM pg_catalog.set_config('paydesk.voiding', '', true);
    PERFORM paydesk.audit('team.journal.void',
        pg_catalog.format('entry=%s operation=%s number=%s was=%s', e.id, e.operation, e.mer_order_no, e.status),
        pg_catalog.left(pg_catalog.btrim(journal_void.reason), 200));
END $$;
REVOKE ALL ON FUNCTION paydesk.journal_void(bigint, text) FROM PUBLIC;
