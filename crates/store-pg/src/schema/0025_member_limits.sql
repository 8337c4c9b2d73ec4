-- Issue 35, item 1: payout limits per team member, held by the database. An admin sets
-- a member's limits per currency (the most one payout row may be, and the most that
-- member's payout rows of one day may add up to, the day in the zone the admin names);
-- a payout row a member requests beyond them is refused when it is inserted, whoever
-- writes it and however (the desk, or the member with psql). Attacked as each role with
-- plain SQL in tests/team/member_limits.rs.
--
-- Hostile callers: members read the limits (their desks show them) and write none; an
-- admin sets and clears them only through `paydesk.set_member_limit`, which audits each
-- change (no table-level write for anyone, so no member can LOCK the table and stall
-- requests). The check runs as the schema's owner and takes the limit's row FOR UPDATE,
-- which a member cannot (no UPDATE privilege): two requests of one member at once are
-- checked one after the other, so together they cannot pass a day's limit.
CREATE TABLE paydesk.member_limits (
    member      text NOT NULL REFERENCES paydesk.members (name) ON DELETE CASCADE,
    currency    text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    per_payout  numeric(24, 6) CHECK (per_payout > 0),
    per_day     numeric(24, 6) CHECK (per_day > 0),
    -- The zone the day of `per_day` is in (a time zone name or UTC).
    day_zone    text NOT NULL DEFAULT 'UTC',
    set_by      text NOT NULL DEFAULT session_user,
    set_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (member, currency),
    CHECK (per_payout IS NOT NULL OR per_day IS NOT NULL)
);
REVOKE ALL ON paydesk.member_limits FROM PUBLIC;
GRANT SELECT ON paydesk.member_limits TO paydesk_viewer, paydesk_support, paydesk_maker,
    paydesk_approver, paydesk_signer, paydesk_admin;

-- Sets (or, with both limits null, clears) a member's limits in one currency.
CREATE FUNCTION paydesk.set_member_limit(who text, code text, one numeric,
    daily numeric, zone_name text) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE cur text := pg_catalog.upper(pg_catalog.btrim(coalesce(set_member_limit.code, '')));
        zone text := coalesce(NULLIF(pg_catalog.btrim(set_member_limit.zone_name), ''), 'UTC');
BEGIN
    IF NOT pg_catalog.pg_has_role(session_user, 'paydesk_admin', 'MEMBER') THEN
        RAISE EXCEPTION 'only an admin sets a member''s payout limits';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM paydesk.members m WHERE m.name OPERATOR(pg_catalog.=) set_member_limit.who) THEN
        RAISE EXCEPTION 'member: no member named %', set_member_limit.who;
    END IF;
    IF cur OPERATOR(pg_catalog.!~) '^[A-Z]{3}$' THEN
        RAISE EXCEPTION 'currency: a three-letter currency code, got %', set_member_limit.code;
    END IF;
    IF pg_catalog.length(zone) OPERATOR(pg_catalog.>) 64
       OR NOT EXISTS (SELECT 1 FROM pg_catalog.pg_timezone_names z WHERE z.name OPERATOR(pg_catalog.=) zone) THEN
        RAISE EXCEPTION 'dayZone: a time zone name such as America/Mexico_City, or UTC, got %', zone;
    END IF;
    IF set_member_limit.one IS NULL AND set_member_limit.daily IS NULL THEN
        DELETE FROM paydesk.member_limits l
         WHERE l.member OPERATOR(pg_catalog.=) set_member_limit.who AND l.currency OPERATOR(pg_catalog.=) cur;
    ELSE
        INSERT INTO paydesk.member_limits AS l (member, currency, per_payout, per_day, day_zone, set_by, set_at)
        VALUES (set_member_limit.who, cur, set_member_limit.one, set_member_limit.daily, zone,
                session_user, pg_catalog.now())
        ON CONFLICT (member, currency) DO UPDATE
           SET per_payout = EXCLUDED.per_payout, per_day = EXCLUDED.per_day, day_zone = EXCLUDED.day_zone,
               set_by = EXCLUDED.set_by, set_at = EXCLUDED.set_at;
    END IF;
    PERFORM paydesk.audit('team.limit.set',
        pg_catalog.format('member=%s currency=%s', set_member_limit.who, cur),
        pg_catalog.format('perPayout=%s perDay=%s dayZone=%s',
            coalesce(set_member_limit.one::text, 'none'), coalesce(set_member_limit.daily::text, 'none'), zone));
    RETURN true;
END $$;
REVOKE ALL ON FUNCTION paydesk.set_member_limit(text, text, numeric, numeric, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.set_member_limit(text, text, numeric, numeric, text) TO paydesk_admin;

-- A payout row within its maker's limits, or refused naming the limit and its value.
CREATE FUNCTION paydesk.request_row_within_limits() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE r paydesk.requests; l paydesk.member_limits; day_start timestamptz; used numeric;
BEGIN
    SELECT * INTO r FROM paydesk.requests q WHERE q.id OPERATOR(pg_catalog.=) NEW.request_id;
    IF NOT FOUND OR r.operation OPERATOR(pg_catalog.<>) 'payout' THEN
        RETURN NEW;
    END IF;
    SELECT * INTO l FROM paydesk.member_limits m
     WHERE m.member OPERATOR(pg_catalog.=) r.maker AND m.currency OPERATOR(pg_catalog.=) r.currency
       FOR UPDATE;
    IF NOT FOUND THEN
        RETURN NEW;
    END IF;
    IF l.per_payout IS NOT NULL AND NEW.amount OPERATOR(pg_catalog.>) l.per_payout THEN
        RAISE EXCEPTION 'amount: row % is % %, over the limit per payout of % % the team set for %',
            NEW.row_no, pg_catalog.trim_scale(NEW.amount), r.currency, pg_catalog.trim_scale(l.per_payout),
            r.currency, r.maker
            USING ERRCODE = 'check_violation';
    END IF;
    IF l.per_day IS NOT NULL THEN
        day_start := pg_catalog.date_trunc('day', pg_catalog.now() AT TIME ZONE l.day_zone) AT TIME ZONE l.day_zone;
        SELECT coalesce(pg_catalog.sum(rr.amount), 0) INTO used
          FROM paydesk.request_rows rr JOIN paydesk.requests q ON q.id OPERATOR(pg_catalog.=) rr.request_id
         WHERE q.maker OPERATOR(pg_catalog.=) r.maker
           AND q.operation OPERATOR(pg_catalog.=) 'payout'
           AND q.currency OPERATOR(pg_catalog.=) r.currency
           AND q.created_at OPERATOR(pg_catalog.>=) day_start
           AND q.state OPERATOR(pg_catalog.<>) 'rejected'
           AND rr.status OPERATOR(pg_catalog.<>) ALL (ARRAY['rejected', 'failed']);
        IF used OPERATOR(pg_catalog.+) NEW.amount OPERATOR(pg_catalog.>) l.per_day THEN
            RAISE EXCEPTION 'amount: row % (% %) would take %''s payouts today over the limit per day of % % the team set (% % requested today)',
                NEW.row_no, pg_catalog.trim_scale(NEW.amount), r.currency, r.maker,
                pg_catalog.trim_scale(l.per_day), r.currency, pg_catalog.trim_scale(used), r.currency
                USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.request_row_within_limits() FROM PUBLIC;
CREATE TRIGGER request_row_within_limits BEFORE INSERT ON paydesk.request_rows
    FOR EACH ROW EXECUTE FUNCTION paydesk.request_row_within_limits();
