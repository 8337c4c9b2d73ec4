-- What the eighth hostile review found in the journal's rules (notes: review-r8, R8-2,
-- R8-3, R8-8, L1, L2), each attacked as the signer who would use it with plain SQL
-- first (tests/team/team_review_r8.rs). Every function here pins its search_path
-- (pg_temp last) and is revoked from PUBLIC; the definer ones take a lock bound.
--
-- The desk's own writes (crates/store-pg/src/journal.rs), which every rule below keeps:
-- * INSERT `sending` (begin) or `pending` (queue), its times on the desk's clock;
-- * the Resend: `pending -> sending` with a new claim `pg:<backend pid>:<nonce>` of the
--   writing link and a send time (the only UPDATE that writes `sent_at`);
-- * `claim` (a claim taken only where none is live), `release` (its own claim only);
-- * `finish`, `not_found_yet`, `resolve`: a status written under the claim the desk
--   took (begin's, the Resend's, or `claim`'s before a lookup), released in the same
--   transaction; `note`, `defer`, `mark_answered`: no status, no claim.
--
-- The team's not-found grace (R8-3): how long after a send the database refuses to
-- call it never received (`pending`, to be sent again). 300 s is the desk's default
-- (`Safety::not_found_grace_secs`); a desk may keep a longer grace of its profile
-- itself, the database holds at least this one, on its own clock. Only the database's
-- owner sets it (no member holds any right on the column).
ALTER TABLE paydesk.team ADD COLUMN not_found_grace_ms bigint NOT NULL DEFAULT 300000
    CHECK (not_found_grace_ms BETWEEN 0 AND 604800000);

-- R8-2: an entry the owner voided stays voided (no member turns it back), marked in a
-- column no member may write.
ALTER TABLE paydesk.journal ADD COLUMN voided boolean NOT NULL DEFAULT false;

-- Whether this session is (or acts as) the journal's owner: the session's login, not
-- the role a definer function runs as (review r8 L2: a definer function of the owner's
-- that wrote the journal would otherwise pass every member's check).
CREATE FUNCTION paydesk.journal_owner_session() RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT pg_catalog.pg_has_role(session_user,
        (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) 'paydesk.journal'::pg_catalog.regclass),
        'USAGE')
$$;
REVOKE ALL ON FUNCTION paydesk.journal_owner_session() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.journal_owner_session() TO paydesk_signer;

-- Whether claim `by` (until `until`) may still be at work: its lease has not run out on
-- the database's clock and, for a desk's claim `pg:<pid>:…`, that server process still
-- runs (journal.rs `claim_live_sql`, the test `claim` takes).
CREATE FUNCTION paydesk.journal_claim_live(by text, until bigint) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT journal_claim_live.by IS NOT NULL AND journal_claim_live.until IS NOT NULL
       AND journal_claim_live.until OPERATOR(pg_catalog.>) (pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::bigint
       AND CASE WHEN journal_claim_live.by OPERATOR(pg_catalog.~) '^pg:[0-9]{1,9}:'
                THEN EXISTS (SELECT 1 FROM pg_catalog.pg_stat_activity a
                              WHERE a.pid OPERATOR(pg_catalog.=) pg_catalog.split_part(journal_claim_live.by, ':', 2)::integer)
                ELSE true END
$$;
REVOKE ALL ON FUNCTION paydesk.journal_claim_live(text, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.journal_claim_live(text, bigint) TO paydesk_signer;

-- R8-3 + L1 + L2: 0037's rule for a new entry, now with the database's clock. A new
-- entry is written at the database's time at the earliest (`created_at`, `sent_at`
-- raised to it: a desk whose clock is behind only lengthens the grace a lookup gives its
-- send, and its payouts count on the day the database says), and never more than five
-- minutes ahead of it (refused, as 0035). The owner test is the session's login (L2). A
-- new entry is never voided, and its claim (if any) is this session's own. Otherwise
-- as 0037.
CREATE OR REPLACE FUNCTION paydesk.journal_written() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE now_ms bigint := (pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::bigint;
    ahead bigint := now_ms OPERATOR(pg_catalog.+) 300000; amount numeric; body jsonb;
    mine text := 'pg:' OPERATOR(pg_catalog.||) pg_catalog.pg_backend_pid()::pg_catalog.text OPERATOR(pg_catalog.||) ':';
BEGIN
    IF paydesk.journal_owner_session() THEN
        RETURN NEW;
    END IF;
    NEW.voided := false;
    IF NEW.claimed_by IS NOT NULL
       AND pg_catalog.left(NEW.claimed_by, pg_catalog.length(mine)) IS DISTINCT FROM mine THEN
        RAISE EXCEPTION 'claim: a new entry''s claim is this session''s own (%…)', mine
            USING ERRCODE = '42501';
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
    NEW.created_at := GREATEST(NEW.created_at, now_ms);
    NEW.updated_at := GREATEST(NEW.updated_at, NEW.created_at);
    IF NEW.sent_at IS NOT NULL THEN
        NEW.sent_at := GREATEST(NEW.sent_at, NEW.created_at);
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.journal_written() FROM PUBLIC;

-- R8-2, R8-3, R8-8: 0035's rule for a changed entry, and for a member (not the
-- database's owner, whose repairs below set their own entry's setting):
-- * a claim is this session's own (`pg:<its backend pid>:…`) when a member sets one, and
--   a claim another session still holds (journal_claim_live) is neither replaced,
--   cleared nor cut short (the desk's `claim` takes only a claim that is not live);
-- * the status changes only under this session's own claim (held before, or taken in
--   the same statement where none was live): a member with psql must first take the
--   entry's claim, visible to every member, and cannot take it from a desk at work on it
--   (a send in flight marked refused by hand, R8-8);
-- * the send time changes only when the entry is taken up for a send (pending ->
--   sending, the desk's Resend), then to the database's clock; any other change of it is
--   kept at what it was (R8-2: a signer moved every accepted payout's send time to today
--   and every worker's day was over);
-- * an entry a lookup may call never received (sending or unknown -> pending, to be
--   sent again) only once the team's not-found grace (`team.not_found_grace_ms`, 300 s
--   by default) has passed since its send on the database's clock (R8-3: a desk whose
--   clock ran ahead cut the grace short). The desk keeps its profile's grace (which may
--   be longer) itself;
-- * an entry the owner voided keeps its status and resolution.
-- As 0035 otherwise (the kept columns, the send time never ahead, the status moves).
CREATE OR REPLACE FUNCTION paydesk.journal_sends_kept() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE now_ms bigint := (pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::bigint;
    mine text := 'pg:' OPERATOR(pg_catalog.||) pg_catalog.pg_backend_pid()::pg_catalog.text OPERATOR(pg_catalog.||) ':';
    grace bigint;
BEGIN
    -- The owner's repairs of one entry (journal_void, journal_reset_sent_at set this for
    -- their own statement; a member may set the setting, but never runs as the owner).
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
       AND NEW.sent_at OPERATOR(pg_catalog.>) (now_ms OPERATOR(pg_catalog.+) 300000) THEN
        RAISE EXCEPTION 'clock: entry %''s send time is more than five minutes ahead of the team database''s clock: set this desk''s clock right before sending', OLD.id
            USING ERRCODE = '42501';
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status
       AND NOT (OLD.status OPERATOR(pg_catalog.=) ANY (ARRAY['pending', 'sending', 'unknown'])
                OR (OLD.status OPERATOR(pg_catalog.=) 'rejected' AND NEW.status OPERATOR(pg_catalog.=) 'accepted')) THEN
        RAISE EXCEPTION 'status: entry % is %, which does not become %: an accepted send is final, a refused one only turns out accepted',
            OLD.id, OLD.status, NEW.status
            USING ERRCODE = '42501';
    END IF;
    NEW.voided := OLD.voided;
    IF paydesk.journal_owner_session() THEN
        NEW.sent_at := GREATEST(NEW.sent_at, OLD.sent_at,
            CASE WHEN NEW.sent_at IS NOT NULL OR OLD.sent_at IS NOT NULL THEN OLD.created_at END);
        RETURN NEW;
    END IF;
    -- A member.
    IF OLD.voided AND (NEW.status, NEW.resolution) IS DISTINCT FROM (OLD.status, OLD.resolution) THEN
        RAISE EXCEPTION 'voided: entry % was voided by the team database''s owner: it stays as voided', OLD.id
            USING ERRCODE = '42501';
    END IF;
    IF (NEW.claimed_by, NEW.claimed_until) IS DISTINCT FROM (OLD.claimed_by, OLD.claimed_until) THEN
        IF NEW.claimed_by IS NOT NULL AND NEW.claimed_by IS DISTINCT FROM OLD.claimed_by
           AND pg_catalog.left(NEW.claimed_by, pg_catalog.length(mine)) IS DISTINCT FROM mine THEN
            RAISE EXCEPTION 'claim: a claim on entry % is this session''s own (%…)', OLD.id, mine
                USING ERRCODE = '42501';
        END IF;
        IF pg_catalog.left(coalesce(OLD.claimed_by, ''), pg_catalog.length(mine)) IS DISTINCT FROM mine
           AND paydesk.journal_claim_live(OLD.claimed_by, OLD.claimed_until) THEN
            RAISE EXCEPTION 'claim: entry % is claimed by another session at work on it (%): it is not taken from it', OLD.id, OLD.claimed_by
                USING ERRCODE = '42501';
        END IF;
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status
       AND pg_catalog.left(coalesce(OLD.claimed_by, ''), pg_catalog.length(mine)) IS DISTINCT FROM mine
       AND pg_catalog.left(coalesce(NEW.claimed_by, ''), pg_catalog.length(mine)) IS DISTINCT FROM mine THEN
        RAISE EXCEPTION 'claim: entry %''s status changes only under this session''s own claim: take its claim first', OLD.id
            USING ERRCODE = '42501';
    END IF;
    IF OLD.status OPERATOR(pg_catalog.=) 'pending' AND NEW.status OPERATOR(pg_catalog.=) 'sending' THEN
        NEW.sent_at := now_ms;
    ELSE
        NEW.sent_at := OLD.sent_at;
    END IF;
    IF NEW.status OPERATOR(pg_catalog.=) 'pending'
       AND OLD.status OPERATOR(pg_catalog.=) ANY (ARRAY['sending', 'unknown']) THEN
        SELECT t.not_found_grace_ms INTO grace FROM paydesk.team t WHERE t.id OPERATOR(pg_catalog.=) 1;
        IF now_ms OPERATOR(pg_catalog.<) (coalesce(OLD.sent_at, OLD.created_at) OPERATOR(pg_catalog.+) coalesce(grace, 300000)) THEN
            RAISE EXCEPTION 'grace: entry % was sent % s ago, by the team database''s clock: it is not called never received before % s have passed (the team''s not-found grace); look it up again later',
                OLD.id, (now_ms OPERATOR(pg_catalog.-) coalesce(OLD.sent_at, OLD.created_at)) OPERATOR(pg_catalog./) 1000,
                coalesce(grace, 300000) OPERATOR(pg_catalog./) 1000
                USING ERRCODE = '42501';
        END IF;
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.journal_sends_kept() FROM PUBLIC;

-- R8-2b: the owner's void sticks (the entry is marked voided, and no member turns it
-- back: `journal_sends_kept`), and it is refused for an entry the gateway answered
-- (a trade number) or one in flight (sending, unknown), whose money may well have left,
-- unless the owner says `force` (after checking the merchant's order list). Otherwise
-- as 0035's.
DROP FUNCTION paydesk.journal_void(bigint, text);
CREATE FUNCTION paydesk.journal_void(entry bigint, reason text, force boolean DEFAULT false) RETURNS void
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
       AND (e.trade_no IS NOT NULL OR e.status OPERATOR(pg_catalog.=) ANY (ARRAY['sending', 'unknown'])) THEN
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

-- R8-2: the owner's repair of a poisoned send time (a real payout whose send time a
-- member moved to today): put back to when the entry was written, its status and
-- everything else left alone, with the owner's reason, audited. Nobody else may call
-- it (not granted; revoked from PUBLIC).
CREATE FUNCTION paydesk.journal_reset_sent_at(entry bigint, reason text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE e paydesk.journal;
BEGIN
    IF coalesce(pg_catalog.btrim(journal_reset_sent_at.reason), '') OPERATOR(pg_catalog.=) '' THEN
        RAISE EXCEPTION 'reason: say why the send time is put back' USING ERRCODE = 'check_violation';
    END IF;
    SELECT * INTO e FROM paydesk.journal j WHERE j.id OPERATOR(pg_catalog.=) journal_reset_sent_at.entry FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'entry: no journal entry %', journal_reset_sent_at.entry;
    END IF;
    PERFORM pg_catalog.set_config('paydesk.voiding', e.id::text, true);
    UPDATE paydesk.journal SET sent_at = created_at WHERE id OPERATOR(pg_catalog.=) e.id AND sent_at IS NOT NULL;
    PERFORM pg_catalog.set_config('paydesk.voiding', '', true);
    PERFORM paydesk.audit('team.journal.reset_sent_at',
        pg_catalog.format('entry=%s operation=%s number=%s status=%s sent_at=%s created_at=%s', e.id, e.operation,
                          e.mer_order_no, e.status, coalesce(e.sent_at::pg_catalog.text, '-'), e.created_at),
        pg_catalog.left(pg_catalog.btrim(journal_reset_sent_at.reason), 200));
END $$;
REVOKE ALL ON FUNCTION paydesk.journal_reset_sent_at(bigint, text) FROM PUBLIC;
