-- What the fifth hostile review found (notes: review-sql-r5) in 0023, 0024, 0025 and
-- 0027, attacked as the member who would use each hole with plain SQL first
-- (tests/team/team_review_r5.rs). Every function here pins its search_path (pg_temp
-- last) and is revoked from PUBLIC; the definer ones take a lock bound.

-- F2 (0025). A maker's day limit held whatever the isolation level. The check took the
-- limit's row FOR UPDATE and summed the day's rows, which is right only in READ
-- COMMITTED (the sum's statement takes a fresh snapshot after the lock): two REPEATABLE
-- READ transactions of one maker each summed on a snapshot from before the other's
-- commit, and together passed the limit. Now every payout row checked UPDATEs the
-- limit's row (its values unchanged): the next writer waits for it, and then either
-- sees it (READ COMMITTED re-reads the row, and the sum's snapshot sees the rows of the
-- transaction that wrote it) or, when its snapshot is older than that commit
-- (REPEATABLE READ, SERIALIZABLE), fails with a serialization failure and is retried.
-- An admin's change of the limit is such a write too.
--
-- F11 (0025). An admin does not set or clear their own limit (another admin does), and
-- the audit line gives the limit before the change as well as after.
CREATE OR REPLACE FUNCTION paydesk.request_row_within_limits() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE r paydesk.requests; l paydesk.member_limits; day_start timestamptz; used numeric;
BEGIN
    SELECT * INTO r FROM paydesk.requests q WHERE q.id OPERATOR(pg_catalog.=) NEW.request_id;
    IF NOT FOUND OR r.operation OPERATOR(pg_catalog.<>) 'payout' THEN
        RETURN NEW;
    END IF;
    -- A write, not a lock: see F2 above.
    UPDATE paydesk.member_limits m SET set_at = m.set_at
     WHERE m.member OPERATOR(pg_catalog.=) r.maker AND m.currency OPERATOR(pg_catalog.=) r.currency
    RETURNING m.* INTO l;
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

CREATE OR REPLACE FUNCTION paydesk.set_member_limit(who text, code text, one numeric,
    daily numeric, zone_name text) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE cur text := pg_catalog.upper(pg_catalog.btrim(coalesce(set_member_limit.code, '')));
        zone text := coalesce(NULLIF(pg_catalog.btrim(set_member_limit.zone_name), ''), 'UTC');
        was paydesk.member_limits;
BEGIN
    IF NOT pg_catalog.pg_has_role(session_user, 'paydesk_admin', 'MEMBER') THEN
        RAISE EXCEPTION 'only an admin sets a member''s payout limits';
    END IF;
    IF set_member_limit.who OPERATOR(pg_catalog.=) session_user::pg_catalog.text THEN
        RAISE EXCEPTION 'member: an admin does not set their own payout limits; another admin does'
            USING ERRCODE = '42501';
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
    SELECT * INTO was FROM paydesk.member_limits l
     WHERE l.member OPERATOR(pg_catalog.=) set_member_limit.who AND l.currency OPERATOR(pg_catalog.=) cur
       FOR UPDATE;
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
        pg_catalog.format('perPayout=%s perDay=%s dayZone=%s (was perPayout=%s perDay=%s dayZone=%s)',
            coalesce(set_member_limit.one::text, 'none'), coalesce(set_member_limit.daily::text, 'none'), zone,
            coalesce(was.per_payout::text, 'none'), coalesce(was.per_day::text, 'none'),
            coalesce(was.day_zone, 'none')));
    RETURN true;
END $$;
REVOKE ALL ON FUNCTION paydesk.set_member_limit(text, text, numeric, numeric, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.set_member_limit(text, text, numeric, numeric, text) TO paydesk_admin;

-- F3 (0023). The journal's purpose comes from the number's live request row only: since
-- 0004 a rejected request's rows are no longer live and its numbers may be requested
-- again, and the first row a scan returned was the dead one (the purpose the approvers
-- refused).
CREATE OR REPLACE FUNCTION paydesk.journal_purpose_of_request() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE f pg_catalog.jsonb;
BEGIN
    SELECT rr.form INTO f FROM paydesk.request_rows rr
     WHERE rr.mer_order_no OPERATOR(pg_catalog.=) NEW.mer_order_no AND rr.live;
    IF FOUND THEN
        NEW.purpose := NULLIF(pg_catalog.btrim(f OPERATOR(pg_catalog.->) 'purpose' OPERATOR(pg_catalog.->>) 'text'), '');
        NEW.purpose_ref := NULLIF(pg_catalog.btrim(f OPERATOR(pg_catalog.->) 'purpose' OPERATOR(pg_catalog.->>) 'reference'), '');
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.journal_purpose_of_request() FROM PUBLIC;

-- F4 (0027). `moved_at` is the database's to write: the signer no longer writes it
-- (the desk never did), an insert takes the stated time (the sync's read) only within a
-- day of the server's clock, a read is never earlier than the row's previous one (a
-- lower `synced_at` keeps the previous), and an update that moves no balance field
-- keeps the row's `moved_at`. The columns compared are
-- `paydesk_model::orders::BALANCE_FIELDS`, in its order (the unit test
-- `store::dialect::tests::the_postgres_trigger_moves_on_the_balance_fields` reads this
-- file).
REVOKE INSERT (moved_at), UPDATE (moved_at) ON paydesk.orders FROM paydesk_signer;
CREATE OR REPLACE FUNCTION paydesk.orders_moved() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE server_now bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint; stated bigint;
BEGIN
    IF TG_OP = 'INSERT' THEN
        stated := COALESCE(NEW.moved_at, NULLIF(NEW.synced_at, 0), NEW.made_at, NEW.created_at);
        NEW.moved_at := CASE
            WHEN stated OPERATOR(pg_catalog.>=) (server_now OPERATOR(pg_catalog.-) 86400000)
             AND stated OPERATOR(pg_catalog.<=) (server_now OPERATOR(pg_catalog.+) 86400000)
            THEN stated
            ELSE server_now
        END;
    ELSIF (NEW.state, NEW.currency, NEW.source_amount, NEW.handling_fee, NEW.transaction_fixed_fee, NEW.exception_handling_fee, NEW.rolling_reserve, NEW.rolling_reserve_status, NEW.settle, NEW.refund_amount)
        IS DISTINCT FROM
        (OLD.state, OLD.currency, OLD.source_amount, OLD.handling_fee, OLD.transaction_fixed_fee, OLD.exception_handling_fee, OLD.rolling_reserve, OLD.rolling_reserve_status, OLD.settle, OLD.refund_amount) THEN
        NEW.synced_at := GREATEST(NEW.synced_at, OLD.synced_at);
        NEW.moved_at := CASE
            WHEN NEW.synced_at IS DISTINCT FROM OLD.synced_at
             AND NEW.synced_at OPERATOR(pg_catalog.>) 0
             AND NEW.synced_at OPERATOR(pg_catalog.<=) (server_now OPERATOR(pg_catalog.+) 86400000)
            THEN NEW.synced_at
            ELSE server_now
        END;
    ELSE
        NEW.synced_at := GREATEST(NEW.synced_at, OLD.synced_at);
        NEW.moved_at := OLD.moved_at;
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.orders_moved() FROM PUBLIC;

-- F7 (0024 + 0015). Turning payee approval on or off is in the settings' audit line
-- (tests/team/team_review_r5.rs checks that every column an admin may update is).
CREATE OR REPLACE FUNCTION paydesk.team_audit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
BEGIN
    PERFORM paydesk.audit('team.settings.update',
        pg_catalog.format('default_approvals=%s idle_lock_minutes=%s mer_no=%s payee_approval=%s',
            OLD.default_approvals, OLD.idle_lock_minutes, OLD.mer_no, OLD.payee_approval::text),
        pg_catalog.format('default_approvals=%s idle_lock_minutes=%s mer_no=%s payee_approval=%s',
            NEW.default_approvals, NEW.idle_lock_minutes, NEW.mer_no, NEW.payee_approval::text));
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.team_audit() FROM PUBLIC;

-- F8 (0024). A payee's nickname, names and bank hold printable text only: no control
-- characters, no no-break or other invisible spaces, no invisible or direction-changing
-- characters (the desk's rule: crates/core/src/beneficiaries.rs), so no two payees print
-- alike by an invisible difference and no line of the team's log is turned around.
ALTER TABLE paydesk.beneficiaries ADD CONSTRAINT beneficiaries_printable CHECK (
    nickname OPERATOR(pg_catalog.!~) '[\u0001-\u001f\u007f-\u00a0\u00ad\u061c\u180e\u2007\u200b-\u200f\u2028-\u202f\u2060-\u2069\ufeff]'
    AND first_name OPERATOR(pg_catalog.!~) '[\u0001-\u001f\u007f-\u00a0\u00ad\u061c\u180e\u2007\u200b-\u200f\u2028-\u202f\u2060-\u2069\ufeff]'
    AND last_name OPERATOR(pg_catalog.!~) '[\u0001-\u001f\u007f-\u00a0\u00ad\u061c\u180e\u2007\u200b-\u200f\u2028-\u202f\u2060-\u2069\ufeff]'
    AND coalesce(bank, '') OPERATOR(pg_catalog.!~) '[\u0001-\u001f\u007f-\u00a0\u00ad\u061c\u180e\u2007\u200b-\u200f\u2028-\u202f\u2060-\u2069\ufeff]');

-- The team's own writer escapes what 0022 refuses from a desk (`audit_append`): a
-- control, invisible or direction-changing character reaches the log as `\u{XXXX}`,
-- so whatever text a team function is given, its line reads as written.
CREATE OR REPLACE FUNCTION paydesk.audit_escaped(t text) RETURNS text
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE ch text; out text := t;
BEGIN
    IF t IS NULL THEN
        RETURN NULL;
    END IF;
    FOR ch IN SELECT DISTINCT m[1] FROM pg_catalog.regexp_matches(t,
        '([\u0001-\u001f\u007f-\u00a0\u00ad\u061c\u180e\u2007\u200b-\u200f\u2028-\u202f\u2060-\u2069\ufeff])', 'g') m
    LOOP
        out := pg_catalog.replace(out, ch, pg_catalog.format('\u{%s}', pg_catalog.upper(pg_catalog.lpad(pg_catalog.to_hex(pg_catalog.ascii(ch)), 4, '0'))));
    END LOOP;
    RETURN out;
END $$;
REVOKE ALL ON FUNCTION paydesk.audit_escaped(text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION paydesk.audit(operation text, identifiers text, result text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
BEGIN
    PERFORM paydesk.check_session_bounds();
    INSERT INTO paydesk.audit_inbox (at, profile, operator, operation, identifiers, result, latency_ms, db_user)
    VALUES ((pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) * 1000)::bigint, 'team',
            session_user, paydesk.audit_escaped(audit.operation), paydesk.audit_escaped(audit.identifiers),
            paydesk.audit_escaped(audit.result), 0, session_user);
    PERFORM paydesk.audit_seal_pending();
END $$;
REVOKE ALL ON FUNCTION paydesk.audit(text, text, text) FROM PUBLIC;

-- F9 (0024). A payee's names (a card's holder) and bank are not for viewers and support,
-- as 0016 and 0022 hide a card payout's holder from them: they read the book's other
-- columns only, and every desk reads the book through `beneficiaries_shown`, which
-- blanks the names and bank for a member who is neither maker, approver, signer nor
-- admin. The sealed account stays out of their reach too.
REVOKE SELECT ON paydesk.beneficiaries FROM paydesk_viewer, paydesk_support;
GRANT SELECT (id, mer_no, nickname, nickname_key, kind, account_masked, country, needs_approval,
    added_by, added_at, approved_by, approved_at)
    ON paydesk.beneficiaries TO paydesk_viewer, paydesk_support;
CREATE VIEW paydesk.beneficiaries_shown WITH (security_barrier) AS
SELECT b.id, b.mer_no, b.nickname, b.nickname_key, b.kind,
       CASE WHEN s.sees THEN b.first_name ELSE '' END AS first_name,
       CASE WHEN s.sees THEN b.last_name ELSE '' END AS last_name,
       b.account_masked,
       CASE WHEN s.sees THEN b.bank END AS bank,
       b.country, b.needs_approval, b.added_by, b.added_at, b.approved_by, b.approved_at
  FROM paydesk.beneficiaries b
 CROSS JOIN (SELECT pg_catalog.pg_has_role(session_user, 'paydesk_maker', 'MEMBER')
                 OR pg_catalog.pg_has_role(session_user, 'paydesk_approver', 'MEMBER')
                 OR pg_catalog.pg_has_role(session_user, 'paydesk_signer', 'MEMBER')
                 OR pg_catalog.pg_has_role(session_user, 'paydesk_admin', 'MEMBER') AS sees) s;
REVOKE ALL ON paydesk.beneficiaries_shown FROM PUBLIC;
GRANT SELECT ON paydesk.beneficiaries_shown TO paydesk_viewer, paydesk_support, paydesk_maker,
    paydesk_approver, paydesk_signer, paydesk_admin;
