-- Issue 30, item 7, on a server where the owner holds neither pg_signal_backend nor
-- pg_read_all_stats (PostgreSQL 16 and later, unless a superuser granted them: a
-- CREATEROLE role may grant only roles it holds with ADMIN OPTION there).
--
-- Until now the team's functions that end a member's stalling session called
-- pg_terminate_backend whatever the owner held: without pg_signal_backend an
-- approver's decision held up 5 s by another member's open transaction failed at once
-- with "permission denied to terminate process". And without pg_read_all_stats the
-- owner sees another role's session's state, transaction start and query as NULL:
-- `lock_request_row` read "transaction open 20 s or more" as not false, so it tried to
-- end a busy member it could not see.
--
-- Now a session is ended only when the owner may end it (pg_signal_backend, or the
-- privileges of the session's role) and its state is SEEN: a session whose state the
-- owner cannot see counts as busy and is never ended. Without the right, a decision
-- waits its bound (30 s) and fails changing nothing, naming the grant a superuser
-- gives. `end_stalls` and the signer's `advisory_xact_lock` skip whom they may not
-- end, and say why.
--
-- A step's wait on a held request row is 30 s; a session may shorten its own
-- (`SET paydesk.request_wait_seconds = 8`, 1 to 30; a larger value is 30), never
-- lengthen it: it only makes the caller's own step give up sooner.

-- Whether the owner (the definer) may end a session of role `member`: it holds
-- pg_signal_backend, or the privileges of that role (pg_terminate_backend's own rule;
-- members are never superusers).
CREATE FUNCTION paydesk.owner_may_end(member oid) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
    SELECT pg_catalog.pg_has_role(current_user, 'pg_signal_backend', 'USAGE')
        OR (owner_may_end.member IS NOT NULL
            AND EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) owner_may_end.member)
            AND pg_catalog.pg_has_role(current_user, owner_may_end.member, 'USAGE'))
$$;
REVOKE ALL ON FUNCTION paydesk.owner_may_end(oid) FROM PUBLIC;

-- The roles the owner lacks to see and end members' stalling sessions, as a GRANT's
-- list ("pg_signal_backend, pg_read_all_stats"), '' when it holds both.
CREATE FUNCTION paydesk.stall_grants_missing() RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
    SELECT coalesce(pg_catalog.string_agg(g.r, ', ' ORDER BY g.o), '')
      FROM (VALUES (1, 'pg_signal_backend'), (2, 'pg_read_all_stats')) g (o, r)
     WHERE NOT pg_catalog.pg_has_role(current_user, g.r, 'USAGE')
$$;
REVOKE ALL ON FUNCTION paydesk.stall_grants_missing() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.stall_grants_missing() TO paydesk_viewer, paydesk_support,
    paydesk_maker, paydesk_approver, paydesk_signer, paydesk_admin;

-- A step's bound on waiting for a request row: 30 s, or less when the caller's session
-- set `paydesk.request_wait_seconds` (whole seconds, 1 to 30).
CREATE FUNCTION paydesk.request_wait_bound() RETURNS integer
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE s text := pg_catalog.current_setting('paydesk.request_wait_seconds', true); n numeric;
BEGIN
    IF s IS NULL OR pg_catalog.btrim(s) OPERATOR(pg_catalog.=) '' THEN
        RETURN 30;
    END IF;
    BEGIN
        n := pg_catalog.btrim(s)::pg_catalog.numeric;
    EXCEPTION WHEN others THEN
        RAISE EXCEPTION 'paydesk.request_wait_seconds: whole seconds, 1 to 30 (it only shortens a step''s own wait), not %', s;
    END;
    IF n OPERATOR(pg_catalog.=) 'NaN'::pg_catalog.numeric THEN
        RETURN 30;
    END IF;
    -- GREATEST and LEAST are the grammar's, not functions a search path finds.
    RETURN pg_catalog.round(LEAST(GREATEST(n, 1::pg_catalog.numeric), 30::pg_catalog.numeric))::pg_catalog.int4;
END $$;
REVOKE ALL ON FUNCTION paydesk.request_wait_bound() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.request_wait_bound() TO paydesk_viewer, paydesk_support,
    paydesk_maker, paydesk_approver, paydesk_signer, paydesk_admin;

-- The request's row, waited for its bound without letting another member's session
-- hold it: between two waits the member session holding it is ended when the owner may
-- end it and sees it idle (twice, a quarter second apart) or busy in a transaction open
-- 20 s or more. One the owner may not end, or whose state it cannot see (busy, for all
-- it knows), is waited for only: the step fails after its bound naming the grant.
CREATE OR REPLACE FUNCTION paydesk.lock_request_row(request bigint) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE holder xid; lockers xid[]; h record; again record; started timestamptz := pg_catalog.clock_timestamp();
        bound integer := paydesk.request_wait_bound();
        next_look timestamptz := pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) interval '5 seconds';
        unendable boolean := false; missing text;
BEGIN
    IF lock_request_row.request IS NULL THEN
        RETURN false;
    END IF;
    LOOP
        PERFORM 1 FROM paydesk.requests r WHERE r.id OPERATOR(pg_catalog.=) lock_request_row.request
            FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
            RETURN true;
        END IF;
        IF NOT EXISTS (SELECT 1 FROM paydesk.requests r WHERE r.id OPERATOR(pg_catalog.=) lock_request_row.request) THEN
            RETURN false;
        END IF;
        IF pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>)
           (started OPERATOR(pg_catalog.+) pg_catalog.make_interval(secs => bound::pg_catalog.float8)) THEN
            missing := paydesk.stall_grants_missing();
            IF unendable AND missing OPERATOR(pg_catalog.<>) '' THEN
                RAISE EXCEPTION 'request %: another member''s session has held it for % s and the team''s owner may not end it (a superuser runs GRANT % TO %); nothing was changed, try again',
                    lock_request_row.request, bound, missing, current_user
                    USING ERRCODE = 'lock_not_available';
            END IF;
            RAISE EXCEPTION 'request %: another member''s session has held it for % s; nothing was changed, try again',
                lock_request_row.request, bound
                USING ERRCODE = 'lock_not_available';
        END IF;
        IF pg_catalog.clock_timestamp() OPERATOR(pg_catalog.<) next_look THEN
            PERFORM pg_catalog.pg_sleep(0.1);
            CONTINUE;
        END IF;
        next_look := pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) interval '1 second';
        SELECT r.xmax INTO holder FROM paydesk.requests r WHERE r.id OPERATOR(pg_catalog.=) lock_request_row.request;
        PERFORM pg_catalog.pg_stat_clear_snapshot();
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_locks l
                    WHERE l.locktype OPERATOR(pg_catalog.=) 'transactionid' AND l.granted
                      AND l.mode OPERATOR(pg_catalog.=) 'ExclusiveLock'
                      AND l.transactionid OPERATOR(pg_catalog.=) holder) THEN
            lockers := ARRAY[holder];
        ELSE
            lockers := paydesk.lockers_of(holder);
        END IF;
        SELECT a.pid, a.usesysid, a.usename::pg_catalog.text AS who, a.state, a.state_change, a.xact_start INTO h
          FROM pg_catalog.pg_locks l
          JOIN pg_catalog.pg_stat_activity a ON a.pid OPERATOR(pg_catalog.=) l.pid
         WHERE l.locktype OPERATOR(pg_catalog.=) 'transactionid' AND l.granted
           AND l.mode OPERATOR(pg_catalog.=) 'ExclusiveLock'
           AND l.transactionid OPERATOR(pg_catalog.=) ANY (lockers)
           AND a.pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid()
           AND a.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()
           AND EXISTS (SELECT 1 FROM paydesk.logins g WHERE g.name OPERATOR(pg_catalog.=) a.usename::pg_catalog.text)
           AND NOT pg_catalog.pg_has_role(a.usesysid, 'paydesk_signer', 'MEMBER')
         LIMIT 1;
        CONTINUE WHEN NOT FOUND;
        -- Not the owner's to end, or not seen (a NULL state is another role's session
        -- the owner may not read: busy, for all it knows): waited for, never ended.
        IF NOT paydesk.owner_may_end(h.usesysid) OR h.state IS NULL OR h.xact_start IS NULL THEN
            unendable := true;
            CONTINUE;
        END IF;
        unendable := false;
        IF h.state OPERATOR(pg_catalog.=) ANY (ARRAY['idle', 'idle in transaction', 'idle in transaction (aborted)']) THEN
            PERFORM pg_catalog.pg_sleep(0.25);
            PERFORM pg_catalog.pg_stat_clear_snapshot();
            SELECT a.state, a.state_change INTO again FROM pg_catalog.pg_stat_activity a
             WHERE a.pid OPERATOR(pg_catalog.=) h.pid;
            CONTINUE WHEN NOT FOUND OR again.state_change IS NULL
                OR again.state_change IS DISTINCT FROM h.state_change;
        ELSIF h.xact_start OPERATOR(pg_catalog.>) (pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) interval '20 seconds') THEN
            CONTINUE;
        END IF;
        PERFORM 1 FROM paydesk.requests r WHERE r.id OPERATOR(pg_catalog.=) lock_request_row.request
            FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
            RETURN true;
        END IF;
        IF pg_catalog.pg_terminate_backend(h.pid, 2000) THEN
            PERFORM paydesk.audit('team.stall.end', 'member=' OPERATOR(pg_catalog.||) h.who,
                'ended: ' OPERATOR(pg_catalog.||) h.state OPERATOR(pg_catalog.||) ', its transaction open '
                OPERATOR(pg_catalog.||) pg_catalog.date_trunc('second', pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) h.xact_start)::pg_catalog.text
                OPERATOR(pg_catalog.||) ', holding request ' OPERATOR(pg_catalog.||) lock_request_row.request::pg_catalog.text
                OPERATOR(pg_catalog.||) ' that ' OPERATOR(pg_catalog.||) session_user::pg_catalog.text
                OPERATOR(pg_catalog.||) ' waited for');
        END IF;
    END LOOP;
END $$;
REVOKE ALL ON FUNCTION paydesk.lock_request_row(bigint) FROM PUBLIC;

-- Ends the stalling sessions (stalling_sessions) seen idle twice, a quarter second
-- apart, with no statement in between, that the owner may end; one whose state it
-- cannot see is never ended. Those it may not end are left, with a warning naming the
-- grant.
CREATE OR REPLACE FUNCTION paydesk.end_stalls() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE h record; n integer := 0; pids integer[]; changes timestamptz[]; left_alone integer := 0;
BEGIN
    PERFORM pg_catalog.pg_stat_clear_snapshot();
    SELECT pg_catalog.array_agg(c.pid), pg_catalog.array_agg(c.state_change) INTO pids, changes
      FROM paydesk.stalling_sessions() c
     WHERE c.state IS NOT NULL AND c.state_change IS NOT NULL;
    IF pids IS NULL THEN
        RETURN 0;
    END IF;
    PERFORM pg_catalog.pg_sleep(0.25);
    PERFORM pg_catalog.pg_stat_clear_snapshot();
    FOR h IN
        SELECT c.pid, c.who, c.state, c.waiter, a.usesysid,
               pg_catalog.date_trunc('second', pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) c.state_change) AS idle_for
          FROM paydesk.stalling_sessions() c
          JOIN pg_catalog.pg_stat_activity a ON a.pid OPERATOR(pg_catalog.=) c.pid
         WHERE c.pid OPERATOR(pg_catalog.=) ANY (pids)
           AND c.state IS NOT NULL
           AND c.state_change OPERATOR(pg_catalog.=) changes[pg_catalog.array_position(pids, c.pid)]
    LOOP
        IF NOT paydesk.owner_may_end(h.usesysid) THEN
            left_alone := left_alone OPERATOR(pg_catalog.+) 1;
            CONTINUE;
        END IF;
        IF pg_catalog.pg_terminate_backend(h.pid) THEN
            n := n OPERATOR(pg_catalog.+) 1;
            PERFORM paydesk.audit('team.stall.end', 'member=' OPERATOR(pg_catalog.||) h.who,
                'ended: ' OPERATOR(pg_catalog.||) h.state OPERATOR(pg_catalog.||) ' for '
                OPERATOR(pg_catalog.||) h.idle_for::pg_catalog.text
                OPERATOR(pg_catalog.||) ', holding what ' OPERATOR(pg_catalog.||) h.waiter
                OPERATOR(pg_catalog.||) ' waited for');
        END IF;
    END LOOP;
    IF left_alone OPERATOR(pg_catalog.>) 0 THEN
        RAISE WARNING '% stalling member session(s) left alone: the team''s owner may not end them (a superuser runs GRANT % TO %)',
            left_alone, paydesk.stall_grants_missing(), current_user;
    END IF;
    RETURN n;
END $$;
REVOKE ALL ON FUNCTION paydesk.end_stalls() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.end_stalls() TO paydesk_viewer, paydesk_support,
    paydesk_maker, paydesk_approver, paydesk_signer, paydesk_admin;

-- The signer's desk's advisory locks: as before (0012), but a holder the owner may not
-- end is left, and a signer's holder is ended only when seen idle; after the second
-- wait the step fails (55P03, changing nothing), naming the grant when a holder was
-- left for want of it.
CREATE OR REPLACE FUNCTION paydesk.advisory_xact_lock(key bigint) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '5s' AS $$
DECLARE h record; pids integer[]; changes timestamptz[]; left_alone integer := 0;
BEGIN
    BEGIN
        PERFORM pg_catalog.pg_advisory_xact_lock(advisory_xact_lock.key);
        RETURN;
    EXCEPTION WHEN lock_not_available THEN
        NULL;
    END;
    PERFORM pg_catalog.pg_stat_clear_snapshot();
    SELECT pg_catalog.array_agg(c.pid), pg_catalog.array_agg(c.state_change) INTO pids, changes
      FROM paydesk.advisory_holders(advisory_xact_lock.key) c
     WHERE NOT c.signer
        OR c.state OPERATOR(pg_catalog.=) ANY (ARRAY['idle', 'idle in transaction', 'idle in transaction (aborted)']);
    IF pids IS NOT NULL THEN
        PERFORM pg_catalog.pg_sleep(0.25);
        PERFORM pg_catalog.pg_stat_clear_snapshot();
        FOR h IN
            SELECT c.pid, c.who, c.state, c.signer, a.usesysid,
                   pg_catalog.date_trunc('second', pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) c.state_change) AS since
              FROM paydesk.advisory_holders(advisory_xact_lock.key) c
              JOIN pg_catalog.pg_stat_activity a ON a.pid OPERATOR(pg_catalog.=) c.pid
             WHERE c.pid OPERATOR(pg_catalog.=) ANY (pids)
               AND (NOT c.signer
                    OR (c.state OPERATOR(pg_catalog.=) ANY (ARRAY['idle', 'idle in transaction', 'idle in transaction (aborted)'])
                        AND c.state_change OPERATOR(pg_catalog.=) changes[pg_catalog.array_position(pids, c.pid)]))
        LOOP
            IF NOT paydesk.owner_may_end(h.usesysid) THEN
                left_alone := left_alone OPERATOR(pg_catalog.+) 1;
                CONTINUE;
            END IF;
            IF pg_catalog.pg_terminate_backend(h.pid, 2000) THEN
                PERFORM paydesk.audit('team.stall.end', 'member=' OPERATOR(pg_catalog.||) h.who,
                    'ended: ' OPERATOR(pg_catalog.||) coalesce(h.state, 'a session the owner cannot see')
                    OPERATOR(pg_catalog.||) coalesce(' for ' OPERATOR(pg_catalog.||) h.since::pg_catalog.text, '')
                    OPERATOR(pg_catalog.||) CASE WHEN h.signer THEN ', holding a lock of the signer''s desk'
                                                 ELSE ', holding a lock only the signers'' desks take' END);
            END IF;
        END LOOP;
    END IF;
    BEGIN
        PERFORM pg_catalog.pg_advisory_xact_lock(advisory_xact_lock.key);
    EXCEPTION WHEN lock_not_available THEN
        IF left_alone OPERATOR(pg_catalog.>) 0 AND paydesk.stall_grants_missing() OPERATOR(pg_catalog.<>) '' THEN
            RAISE EXCEPTION 'another member''s session holds a lock of the signer''s desk and the team''s owner may not end it (a superuser runs GRANT % TO %); nothing was changed, try again',
                paydesk.stall_grants_missing(), current_user
                USING ERRCODE = 'lock_not_available';
        END IF;
        RAISE;
    END;
END $$;
REVOKE ALL ON FUNCTION paydesk.advisory_xact_lock(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.advisory_xact_lock(bigint) TO paydesk_signer;
