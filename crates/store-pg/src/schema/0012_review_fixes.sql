-- Issue 30, a hostile review of the team's rules (items 4 and 7).
--
-- 1. Ending stalls ends only what stalls. `end_stalls` (any member may call it; the
--    signer's worker does at each round) used to end any member's transaction open more
--    than 10 s that wrote or blocked anyone: a viewer could end the signer's busy worker
--    or a large bulk request. Now it ends a member's session only when that session is
--    IDLE (no statement running: idle, or idle in a transaction), seen so twice a
--    quarter second apart with no statement in between, and holds what another
--    member's session has waited for 5 s or more, that waiter not being the caller's
--    (a caller cannot make a waiter of their own and end whoever they wait for). A busy
--    session (a statement running) is never ended.
-- 2. No member holds the merchant's cache or a journal number with an advisory lock of
--    their own. The keys are computable (SHA-256 of a fixed text), and a session-level
--    advisory lock held by an idle session is no transaction, so no idle bound ends it.
--    The signer's desk now takes these locks through `advisory_xact_lock`, which waits
--    5 s, then ends every session holding that key that is no signer's (busy or idle:
--    only signers' desks take these keys) and a signer's that idles (audited), then
--    waits 5 s more: the signer's sync and records go through in about 5 s.
-- 3. An admin does not change their own roles (another admin, or the owner, does), and
--    the key requests' secrets are sealed to, once published, is replaced by the
--    database's owner only (`paydesk.replace_seal_key`): an admin who made themselves or
--    a member of theirs signer cannot have makers seal card numbers to their own key.

-- Members' sessions idle now (no statement running) that hold what another member's
-- session has waited 5 s or more for; with whom they hold up. The waiter is never the
-- caller's session, nor (but for a signer, whose worker watches its own waits from its
-- second connection) another session of the caller's.
CREATE FUNCTION paydesk.stalling_sessions()
RETURNS TABLE (pid integer, who text, state text, state_change timestamptz, waiter text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT b.pid, b.usename::pg_catalog.text, b.state, b.state_change, w.waiter
      FROM pg_catalog.pg_stat_activity b
     CROSS JOIN LATERAL (
          SELECT w.usename::pg_catalog.text AS waiter
            FROM pg_catalog.pg_stat_activity w
           WHERE w.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()
             AND w.pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid()
             AND w.pid OPERATOR(pg_catalog.<>) b.pid
             AND (w.usename OPERATOR(pg_catalog.<>) session_user
                  OR pg_catalog.pg_has_role(session_user, 'paydesk_signer', 'MEMBER'))
             AND w.state OPERATOR(pg_catalog.=) 'active'
             AND w.wait_event_type OPERATOR(pg_catalog.=) 'Lock'
             AND w.query_start OPERATOR(pg_catalog.<) (pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) interval '5 seconds')
             AND EXISTS (SELECT 1 FROM paydesk.logins l WHERE l.name OPERATOR(pg_catalog.=) w.usename::pg_catalog.text)
             AND b.pid OPERATOR(pg_catalog.=) ANY (pg_catalog.pg_blocking_pids(w.pid))
           LIMIT 1) w
     WHERE b.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()
       AND b.pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid()
       AND b.usename OPERATOR(pg_catalog.<>) session_user
       AND b.state OPERATOR(pg_catalog.=) ANY (ARRAY['idle', 'idle in transaction', 'idle in transaction (aborted)'])
       AND EXISTS (SELECT 1 FROM paydesk.logins l WHERE l.name OPERATOR(pg_catalog.=) b.usename::pg_catalog.text)
$$;
REVOKE ALL ON FUNCTION paydesk.stalling_sessions() FROM PUBLIC;

-- Ends those seen idle twice, a quarter second apart, with no statement in between (a
-- busy desk between two statements is idle for a moment only; a member who runs a
-- statement every few seconds to look busy is idle almost all the time).
CREATE OR REPLACE FUNCTION paydesk.end_stalls() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE h record; n integer := 0; pids integer[]; changes timestamptz[];
BEGIN
    PERFORM pg_catalog.pg_stat_clear_snapshot();
    SELECT pg_catalog.array_agg(c.pid), pg_catalog.array_agg(c.state_change) INTO pids, changes
      FROM paydesk.stalling_sessions() c;
    IF pids IS NULL THEN
        RETURN 0;
    END IF;
    PERFORM pg_catalog.pg_sleep(0.25);
    PERFORM pg_catalog.pg_stat_clear_snapshot();
    FOR h IN
        SELECT c.pid, c.who, c.state, c.waiter,
               pg_catalog.date_trunc('second', pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) c.state_change) AS idle_for
          FROM paydesk.stalling_sessions() c
         WHERE c.pid OPERATOR(pg_catalog.=) ANY (pids)
           AND c.state_change OPERATOR(pg_catalog.=) changes[pg_catalog.array_position(pids, c.pid)]
    LOOP
        IF pg_catalog.pg_terminate_backend(h.pid) THEN
            n := n OPERATOR(pg_catalog.+) 1;
            PERFORM paydesk.audit('team.stall.end', 'member=' OPERATOR(pg_catalog.||) h.who,
                'ended: ' OPERATOR(pg_catalog.||) h.state OPERATOR(pg_catalog.||) ' for '
                OPERATOR(pg_catalog.||) h.idle_for::pg_catalog.text
                OPERATOR(pg_catalog.||) ', holding what ' OPERATOR(pg_catalog.||) h.waiter
                OPERATOR(pg_catalog.||) ' waited for');
        END IF;
    END LOOP;
    RETURN n;
END $$;
REVOKE ALL ON FUNCTION paydesk.end_stalls() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.end_stalls() TO paydesk_viewer, paydesk_support,
    paydesk_maker, paydesk_approver, paydesk_signer, paydesk_admin;

-- Members' sessions (not the caller's) holding advisory lock `key`, and whether each is
-- a signer's.
CREATE FUNCTION paydesk.advisory_holders(key bigint)
RETURNS TABLE (pid integer, who text, state text, state_change timestamptz, signer boolean)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT DISTINCT a.pid, a.usename::pg_catalog.text, a.state, a.state_change,
           pg_catalog.pg_has_role(a.usesysid, 'paydesk_signer', 'MEMBER')
      FROM pg_catalog.pg_locks k
      JOIN pg_catalog.pg_stat_activity a ON a.pid OPERATOR(pg_catalog.=) k.pid
     WHERE k.locktype OPERATOR(pg_catalog.=) 'advisory' AND k.granted
       AND k.database OPERATOR(pg_catalog.=) (SELECT d.oid FROM pg_catalog.pg_database d
                                              WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database())
       AND k.objsubid OPERATOR(pg_catalog.=) 1
       AND k.classid::pg_catalog.int8 OPERATOR(pg_catalog.=) (($1 OPERATOR(pg_catalog.>>) 32) OPERATOR(pg_catalog.&) 4294967295)
       AND k.objid::pg_catalog.int8 OPERATOR(pg_catalog.=) ($1 OPERATOR(pg_catalog.&) 4294967295)
       AND a.pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid()
       AND EXISTS (SELECT 1 FROM paydesk.logins l WHERE l.name OPERATOR(pg_catalog.=) a.usename::pg_catalog.text)
$$;
REVOKE ALL ON FUNCTION paydesk.advisory_holders(bigint) FROM PUBLIC;

-- The signer's desk's advisory locks (the merchant's order cache, a journal number or
-- intent), held until the transaction ends. Waits 5 s; then ends the member sessions
-- holding this key that are no signer's (only the signers' desks take these keys: any
-- other holder, busy or idle, is a member stalling the signer), and a signer's that is
-- idle twice a quarter second apart (a desk never idles holding one), each audited; then
-- waits 5 s more before the step fails (55P03, changing nothing).
CREATE FUNCTION paydesk.advisory_xact_lock(key bigint) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '5s' AS $$
DECLARE h record; pids integer[]; changes timestamptz[];
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
            SELECT c.pid, c.who, c.state, c.signer,
                   pg_catalog.date_trunc('second', pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) c.state_change) AS since
              FROM paydesk.advisory_holders(advisory_xact_lock.key) c
             WHERE c.pid OPERATOR(pg_catalog.=) ANY (pids)
               AND (NOT c.signer
                    OR (c.state OPERATOR(pg_catalog.=) ANY (ARRAY['idle', 'idle in transaction', 'idle in transaction (aborted)'])
                        AND c.state_change OPERATOR(pg_catalog.=) changes[pg_catalog.array_position(pids, c.pid)]))
        LOOP
            IF pg_catalog.pg_terminate_backend(h.pid, 2000) THEN
                PERFORM paydesk.audit('team.stall.end', 'member=' OPERATOR(pg_catalog.||) h.who,
                    'ended: ' OPERATOR(pg_catalog.||) h.state OPERATOR(pg_catalog.||) ' for '
                    OPERATOR(pg_catalog.||) h.since::pg_catalog.text
                    OPERATOR(pg_catalog.||) CASE WHEN h.signer THEN ', holding a lock of the signer''s desk'
                                                 ELSE ', holding a lock only the signers'' desks take' END);
            END IF;
        END LOOP;
    END IF;
    PERFORM pg_catalog.pg_advisory_xact_lock(advisory_xact_lock.key);
END $$;
REVOKE ALL ON FUNCTION paydesk.advisory_xact_lock(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.advisory_xact_lock(bigint) TO paydesk_signer;

-- An admin does not change their own roles: another admin, or the owner, does.
CREATE OR REPLACE FUNCTION paydesk.set_member_roles(member text, team_roles text[]) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE r text; before text; after text;
BEGIN
    IF NOT paydesk.keeps_members() THEN
        RAISE EXCEPTION 'only an admin changes members'' roles';
    END IF;
    IF set_member_roles.member OPERATOR(pg_catalog.=) session_user::pg_catalog.text THEN
        RAISE EXCEPTION 'member %: an admin does not change their own roles; another admin or the database''s owner does', member;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM paydesk.members m WHERE m.name OPERATOR(pg_catalog.=) member) THEN
        RAISE EXCEPTION 'member %: not a member of the team', member;
    END IF;
    PERFORM paydesk.check_member_role(member);
    IF team_roles IS NULL OR pg_catalog.cardinality(team_roles) OPERATOR(pg_catalog.=) 0 THEN
        RAISE EXCEPTION 'role: at least one (to take every role away, remove the member)';
    END IF;
    FOREACH r IN ARRAY team_roles LOOP
        IF r IS NULL OR NOT (r OPERATOR(pg_catalog.=) ANY (ARRAY['viewer', 'support', 'maker', 'approver', 'signer', 'admin'])) THEN
            RAISE EXCEPTION 'role %: one of viewer, support, maker, approver, signer, admin', r;
        END IF;
    END LOOP;
    before := paydesk.roles_text(member);
    PERFORM paydesk.set_member_group_roles(member, team_roles);
    after := paydesk.roles_text(member);
    UPDATE paydesk.members m SET role = after, added_by = session_user, added_at = pg_catalog.now()
     WHERE m.name OPERATOR(pg_catalog.=) member;
    PERFORM paydesk.audit('team.member.role', 'member=' OPERATOR(pg_catalog.||) member,
        'roles ' OPERATOR(pg_catalog.||) before OPERATOR(pg_catalog.||) ' -> ' OPERATOR(pg_catalog.||) after);
    RETURN after;
END $$;
REVOKE ALL ON FUNCTION paydesk.set_member_roles(text, text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.set_member_roles(text, text[]) TO paydesk_admin;

-- A signer's desk publishes the seal key when none is (or the same one again); a
-- different key is refused: a signer who holds another merchant key, or a member an
-- admin made signer, cannot have makers seal to it. The merchant key rotated (README:
-- when a signer leaves), the database's owner puts the new public key in place:
--   SELECT paydesk.replace_seal_key('<base64 SPKI DER>');
CREATE OR REPLACE FUNCTION paydesk.publish_seal_key(spki text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE k paydesk.seal_key;
BEGIN
    IF NOT pg_catalog.pg_has_role(session_user, 'paydesk_signer', 'MEMBER') THEN
        RAISE EXCEPTION 'only a signer publishes the key requests are sealed to';
    END IF;
    IF publish_seal_key.spki !~ '^[A-Za-z0-9+/=]+$'
       OR pg_catalog.length(publish_seal_key.spki) NOT BETWEEN 40 AND 4000 THEN
        RAISE EXCEPTION 'spki: the merchant''s public key, base64 DER';
    END IF;
    SELECT * INTO k FROM paydesk.seal_key s WHERE s.id OPERATOR(pg_catalog.=) 1 FOR UPDATE;
    IF FOUND THEN
        IF k.spki OPERATOR(pg_catalog.=) publish_seal_key.spki THEN
            RETURN;
        END IF;
        RAISE EXCEPTION 'spki: the team''s seal key is already set (by %, at %) and is replaced by the database''s owner only (paydesk.replace_seal_key), when the merchant key is rotated',
            k.set_by, k.set_at;
    END IF;
    INSERT INTO paydesk.seal_key (id, spki, set_by) VALUES (1, publish_seal_key.spki, session_user);
    PERFORM paydesk.audit('team.seal_key', 'by=' OPERATOR(pg_catalog.||) session_user, 'published');
END $$;
REVOKE ALL ON FUNCTION paydesk.publish_seal_key(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.publish_seal_key(text) TO paydesk_signer;

-- The owner's own: a rotated merchant key's public half. Granted to nobody.
CREATE FUNCTION paydesk.replace_seal_key(spki text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
BEGIN
    IF replace_seal_key.spki !~ '^[A-Za-z0-9+/=]+$'
       OR pg_catalog.length(replace_seal_key.spki) NOT BETWEEN 40 AND 4000 THEN
        RAISE EXCEPTION 'spki: the merchant''s public key, base64 DER';
    END IF;
    INSERT INTO paydesk.seal_key (id, spki, set_by) VALUES (1, replace_seal_key.spki, session_user)
        ON CONFLICT (id) DO UPDATE SET spki = EXCLUDED.spki, set_by = EXCLUDED.set_by, set_at = pg_catalog.now();
    PERFORM paydesk.audit('team.seal_key', 'by=' OPERATOR(pg_catalog.||) session_user, 'replaced by the owner');
END $$;
REVOKE ALL ON FUNCTION paydesk.replace_seal_key(text) FROM PUBLIC;

-- 4. A desk's log row is bounded and is a desk's: identifiers and result 2,000
--    characters at most, profile and operation 200; the team's own rows (profile
--    'team', operations 'team.*') are written by the team's functions only; the row's
--    time is the server's, never the caller's (no backdated row).
CREATE OR REPLACE FUNCTION paydesk.audit_append(at bigint, profile text, operator text, operation text,
    identifiers text, result text, latency_ms bigint) RETURNS paydesk.audit_log
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE r paydesk.audit_log; mine bigint; sealed_id bigint;
BEGIN
    IF audit_append.operator IS DISTINCT FROM session_user::pg_catalog.text THEN
        RAISE EXCEPTION 'operator: the audit log''s operator is the database user who writes the row (%), not %',
            session_user, audit_append.operator;
    END IF;
    IF audit_append.profile IS NULL OR pg_catalog.length(audit_append.profile) OPERATOR(pg_catalog.>) 200 THEN
        RAISE EXCEPTION 'profile: at most 200 characters';
    END IF;
    IF audit_append.operation IS NULL OR pg_catalog.length(audit_append.operation) OPERATOR(pg_catalog.>) 200 THEN
        RAISE EXCEPTION 'operation: at most 200 characters';
    END IF;
    IF audit_append.identifiers IS NULL OR pg_catalog.length(audit_append.identifiers) OPERATOR(pg_catalog.>) 2000 THEN
        RAISE EXCEPTION 'identifiers: at most 2,000 characters (%)', pg_catalog.length(audit_append.identifiers);
    END IF;
    IF audit_append.result IS NULL OR pg_catalog.length(audit_append.result) OPERATOR(pg_catalog.>) 2000 THEN
        RAISE EXCEPTION 'result: at most 2,000 characters (%)', pg_catalog.length(audit_append.result);
    END IF;
    IF pg_catalog.lower(pg_catalog.btrim(audit_append.profile)) OPERATOR(pg_catalog.=) 'team' THEN
        RAISE EXCEPTION 'profile: team is the team''s own rows, written by the team''s functions only';
    END IF;
    IF pg_catalog.lower(pg_catalog.btrim(audit_append.operation)) OPERATOR(pg_catalog.~~) 'team.%' THEN
        RAISE EXCEPTION 'operation: team.* are the team''s own steps, written by the team''s functions only';
    END IF;
    PERFORM paydesk.check_session_bounds();
    INSERT INTO paydesk.audit_inbox (at, profile, operator, operation, identifiers, result, latency_ms, db_user)
    VALUES ((pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8,
            audit_append.profile, session_user, audit_append.operation,
            audit_append.identifiers, audit_append.result,
            GREATEST(0, coalesce(audit_append.latency_ms, 0)), session_user)
    RETURNING n INTO mine;
    sealed_id := paydesk.audit_seal_pending(mine);
    IF sealed_id IS NOT NULL THEN
        SELECT * INTO r FROM paydesk.audit_log l WHERE l.id OPERATOR(pg_catalog.=) sealed_id;
        RETURN r;
    END IF;
    SELECT 0, i.at, i.profile, i.operator, i.operation, i.identifiers, i.result, i.latency_ms,
           i.db_user, '', ''
      INTO r FROM paydesk.audit_inbox i WHERE i.n OPERATOR(pg_catalog.=) mine;
    RETURN r;
END $$;

-- 5. Sealing is bounded: at most 500 inbox rows per call, oldest first, so a member who
--    flooded the inbox makes no other member's step do their work at once (the rest are
--    chained by the next sealers, 500 at a time).
CREATE OR REPLACE FUNCTION paydesk.audit_seal_pending(mine bigint DEFAULT NULL) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE r paydesk.audit_inbox; sealed_id bigint; found_mine bigint;
BEGIN
    IF pg_catalog.current_setting('transaction_isolation') OPERATOR(pg_catalog.<>) 'read committed' THEN
        RETURN NULL;
    END IF;
    PERFORM 1 FROM paydesk.audit_head h WHERE h.id OPERATOR(pg_catalog.=) 1 FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    FOR r IN SELECT * FROM paydesk.audit_inbox i ORDER BY i.n LIMIT 500 LOOP
        INSERT INTO paydesk.audit_log (at, profile, operator, operation, identifiers, result, latency_ms, db_user)
        VALUES (r.at, r.profile, r.db_user, r.operation, r.identifiers, r.result, r.latency_ms, r.db_user)
        RETURNING id INTO sealed_id;
        DELETE FROM paydesk.audit_inbox i WHERE i.n OPERATOR(pg_catalog.=) r.n;
        IF r.n OPERATOR(pg_catalog.=) mine THEN
            found_mine := sealed_id;
        END IF;
    END LOOP;
    RETURN found_mine;
END $$;
