-- Issue 30, what the fourth hostile review found (notes: review-sql-r4), each attacked
-- by a member with plain SQL first (tests/team/team_review_r4.rs).
--
-- F1. A signer records a review submission's later outcomes. 0016 moved the signer to
--     UPDATE on the columns the desk writes, and 0018 (another branch) then added the
--     column `evidence`, which the desk's update sets too: every second write of a
--     submission on a team was refused. The guard test now reads the desk's own UPDATE
--     statements and checks the signer holds every column they set.
GRANT UPDATE (evidence) ON paydesk.review_submissions TO paydesk_signer;

-- F5. A member's log row cannot forge lines in another member's name. `identifiers` and
--     `result` took any character, so a viewer's row with a line break (and a made-up
--     "#9 ... apo team.request.approved" after it), an ANSI escape that blanks the real
--     operator on a terminal, or a right-to-left override printed as the team's own line
--     in `audit list`. Now control characters (C0, DEL, C1) and the invisible and
--     direction-changing characters are refused there, naming the field, as profile and
--     operation are (0016); letters of any script stay allowed (payee names). The
--     desk's own writer escapes them (`\n`, `\u{202e}`) before it writes, and the CLI
--     escapes them when it prints a row.
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
    IF audit_append.profile OPERATOR(pg_catalog.!~) '^[ -~]*$' THEN
        RAISE EXCEPTION 'profile: printable ASCII only (letters, digits, spaces and punctuation; no tab, line break, no-break space or other character)';
    END IF;
    IF audit_append.operation OPERATOR(pg_catalog.!~) '^[ -~]*$' THEN
        RAISE EXCEPTION 'operation: printable ASCII only (letters, digits, spaces and punctuation; no tab, line break, no-break space or other character)';
    END IF;
    IF audit_append.identifiers IS NULL OR pg_catalog.length(audit_append.identifiers) OPERATOR(pg_catalog.>) 2000 THEN
        RAISE EXCEPTION 'identifiers: at most 2,000 characters (%)', pg_catalog.length(audit_append.identifiers);
    END IF;
    IF audit_append.result IS NULL OR pg_catalog.length(audit_append.result) OPERATOR(pg_catalog.>) 2000 THEN
        RAISE EXCEPTION 'result: at most 2,000 characters (%)', pg_catalog.length(audit_append.result);
    END IF;
    IF audit_append.identifiers OPERATOR(pg_catalog.~) '[\u0001-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]' THEN
        RAISE EXCEPTION 'identifiers: no control characters (line break, tab, escape) and no invisible or direction-changing characters (U+200B..U+200F, U+2028..U+202E, U+2060..U+2069, U+FEFF)';
    END IF;
    IF audit_append.result OPERATOR(pg_catalog.~) '[\u0001-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]' THEN
        RAISE EXCEPTION 'result: no control characters (line break, tab, escape) and no invisible or direction-changing characters (U+200B..U+200F, U+2028..U+202E, U+2060..U+2069, U+FEFF)';
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

-- F4. A claim is alive only while a session of the role that claimed runs under its
--     process number (and start time, when the owner may read it). Without
--     pg_read_all_stats the owner sees no member session's start, so a claim was alive
--     by its number alone: any member who got a dead worker's number (Linux hands them
--     out in turn) kept its request held, unpaid, for as long as it stayed connected.
--     A session's role (`usesysid`) is visible without any grant, and a member cannot
--     connect as another: only the same signer revives their own claim.
CREATE FUNCTION paydesk.claim_alive(pid integer, started timestamptz, by text) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
    SELECT claim_alive.pid IS NOT NULL AND claim_alive.by IS NOT NULL AND EXISTS (
        SELECT 1 FROM pg_catalog.pg_stat_activity a
          JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) a.usesysid
         WHERE a.pid OPERATOR(pg_catalog.=) claim_alive.pid
           AND r.rolname OPERATOR(pg_catalog.=) claim_alive.by
           AND (claim_alive.started IS NULL OR a.backend_start IS NULL
                OR a.backend_start OPERATOR(pg_catalog.=) claim_alive.started))
$$;
REVOKE ALL ON FUNCTION paydesk.claim_alive(integer, timestamptz, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.claim_alive(integer, timestamptz, text) TO paydesk_signer;

-- The two-argument form, for desks from before this migration: the claimer is the
-- role of the request claimed under that process and start.
CREATE OR REPLACE FUNCTION paydesk.claim_alive(pid integer, started timestamptz) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
    SELECT paydesk.claim_alive(claim_alive.pid, claim_alive.started,
        (SELECT q.claimed_by FROM paydesk.requests q
          WHERE q.claimed_pid OPERATOR(pg_catalog.=) claim_alive.pid
            AND q.claimed_backend_start IS NOT DISTINCT FROM claim_alive.started
          ORDER BY q.claimed_at DESC LIMIT 1))
$$;

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

-- F2. A card payout's holder (name, e-mail, mobile, address) is shown to who approves,
--     sends or asked for the payout; everyone else read it from the journal the signer's
--     worker writes (the summary "payout CARD 500 MXN to John Doe 4111...", the request's
--     benFirstName, email, mobile, addressLine...), though 0016 hid it in the requests.
--     Now the journal's `request` and `summary` are refused to viewers, support, makers
--     and admins; every member reads the journal through `paydesk.journal_shown`, which
--     leaves a card payout's holder out for whom `sees_journal_holders` is false.

-- Whether the session's user may read the holder of the card payout under
-- `mer_order_no`: an approver, a signer, the owner, or the maker of the request whose
-- row carries that number.
CREATE FUNCTION paydesk.sees_journal_holders(mer_order_no text) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
    SELECT pg_catalog.pg_has_role(session_user, 'paydesk_approver', 'MEMBER')
        OR pg_catalog.pg_has_role(session_user, 'paydesk_signer', 'MEMBER')
        OR paydesk.is_owner()
        OR EXISTS (SELECT 1 FROM paydesk.request_rows rr
                     JOIN paydesk.requests q ON q.id OPERATOR(pg_catalog.=) rr.request_id
                    WHERE rr.mer_order_no OPERATOR(pg_catalog.=) sees_journal_holders.mer_order_no
                      AND q.maker OPERATOR(pg_catalog.=) session_user::pg_catalog.text)
$$;
REVOKE ALL ON FUNCTION paydesk.sees_journal_holders(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.sees_journal_holders(text) TO paydesk_viewer, paydesk_support,
    paydesk_maker, paydesk_approver, paydesk_signer, paydesk_admin;

-- A card payout's request (JSON) without its holder's members; text that is not a JSON
-- object is shown as `{}` (the desk writes JSON; nothing a signer writes there fails
-- another member's read).
CREATE FUNCTION paydesk.holder_free_request(request text) RETURNS text
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, paydesk, pg_temp AS $$
BEGIN
    RETURN (holder_free_request.request::pg_catalog.jsonb OPERATOR(pg_catalog.-)
            ARRAY['benFirstName', 'benLastName', 'email', 'mobile', 'addressLine', 'addressLine2',
                  'city', 'state', 'countryCode', 'postCode']::pg_catalog.text[])::pg_catalog.text;
EXCEPTION WHEN OTHERS THEN
    RETURN '{}';
END $$;
REVOKE ALL ON FUNCTION paydesk.holder_free_request(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.holder_free_request(text) TO paydesk_viewer, paydesk_support,
    paydesk_maker, paydesk_approver, paydesk_signer, paydesk_admin;

-- The journal as the session's user may read it. The desk writes a card payout's summary
-- as "payout CARD <amount> <currency> to <first> <last> <masked card>": shown as
-- "payout CARD <amount> <currency> to card <masked card>"; one in another shape, as
-- "payout CARD (holder hidden)".
CREATE VIEW paydesk.journal_shown WITH (security_barrier) AS
SELECT j.id, j.mer_no, j.profile, j.operation, j.mer_order_no,
       CASE WHEN j.operation OPERATOR(pg_catalog.<>) 'v1.payout' THEN j.request
            WHEN paydesk.sees_journal_holders(j.mer_order_no) THEN j.request
            ELSE paydesk.holder_free_request(j.request) END AS request,
       CASE WHEN j.operation OPERATOR(pg_catalog.<>) 'v1.payout' THEN j.summary
            WHEN paydesk.sees_journal_holders(j.mer_order_no) THEN j.summary
            WHEN j.summary OPERATOR(pg_catalog.~) '^payout CARD [^ ]+ [^ ]+ to .* [^ ]+$'
                THEN pg_catalog.regexp_replace(j.summary, '^(payout CARD [^ ]+ [^ ]+ to ).* ([^ ]+)$', '\1card \2')
            ELSE 'payout CARD (holder hidden)' END AS summary,
       j.status, j.trade_no, j.code, j.message, j.attempts, j.created_at, j.updated_at,
       j.next_check_at, j.fingerprint, j.claimed_by, j.claimed_until, j.sent_at, j.lookups,
       j.resolution, j.answered_ok, j.written_by
  FROM paydesk.journal j;
GRANT SELECT ON paydesk.journal_shown TO paydesk_viewer, paydesk_support, paydesk_maker,
    paydesk_approver, paydesk_signer, paydesk_admin;

REVOKE SELECT ON paydesk.journal FROM paydesk_viewer, paydesk_support, paydesk_maker, paydesk_admin;
DO $$
DECLARE cols text;
BEGIN
    SELECT pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
      FROM pg_catalog.pg_attribute a
     WHERE a.attrelid = 'paydesk.journal'::regclass AND a.attnum > 0 AND NOT a.attisdropped
       AND a.attname <> ALL (ARRAY['request', 'summary']);
    EXECUTE pg_catalog.format('GRANT SELECT (%s) ON paydesk.journal TO paydesk_viewer, paydesk_support, paydesk_maker, paydesk_admin', cols);
END $$;

-- F3. A signer holding approved requests' rows (SELECT ... FOR UPDATE, its session's
--     idle bound SET to 0) left every other signer's worker with nothing to claim
--     (claim_next skips locked rows, so nobody waits and nothing was a "stall"). A
--     member's session is now also stalling when it sits idle in a transaction:
--     - for 10 s or more holding row locks on the requests (a ROW SHARE or ROW
--       EXCLUSIVE lock on paydesk.requests: FOR UPDATE/SHARE or an UPDATE) while a
--       request waits to be taken (approved, or executing with its worker gone); no
--       desk keeps a transaction open on the requests between statements;
--     - for 65 s or more holding any lock above ACCESS SHARE on a team table (past
--       the team's own bound of 60 s, which a session may SET away).
--     end_stalls ends it as any stall (seen idle twice, the owner allowed to, audited
--     `team.stall.end`).
CREATE OR REPLACE FUNCTION paydesk.stalling_sessions()
RETURNS TABLE (pid integer, who text, state text, state_change timestamptz, waiter text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
SELECT DISTINCT ON (s.pid) s.pid, s.who, s.state, s.state_change, s.waiter FROM (
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
       AND (b.state OPERATOR(pg_catalog.=) ANY (ARRAY['idle', 'idle in transaction', 'idle in transaction (aborted)'])
            OR EXISTS (
                SELECT 1 FROM pg_catalog.pg_locks k
                  JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) k.relation
                  JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
                 WHERE k.pid OPERATOR(pg_catalog.=) b.pid AND k.granted
                   AND k.locktype OPERATOR(pg_catalog.=) 'relation'
                   AND n.nspname OPERATOR(pg_catalog.=) 'paydesk'
                   AND k.mode OPERATOR(pg_catalog.=) ANY (ARRAY['ShareUpdateExclusiveLock', 'ShareLock',
                       'ShareRowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock'])))
       AND EXISTS (SELECT 1 FROM paydesk.logins l WHERE l.name OPERATOR(pg_catalog.=) b.usename::pg_catalog.text)
    UNION ALL
    SELECT b.pid, b.usename::pg_catalog.text, b.state, b.state_change,
           'the requests waiting to be taken'::pg_catalog.text
      FROM pg_catalog.pg_stat_activity b
     WHERE b.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()
       AND b.pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid()
       AND b.usename OPERATOR(pg_catalog.<>) session_user
       AND b.state OPERATOR(pg_catalog.=) 'idle in transaction'
       AND EXISTS (SELECT 1 FROM paydesk.logins l WHERE l.name OPERATOR(pg_catalog.=) b.usename::pg_catalog.text)
       AND ((b.state_change OPERATOR(pg_catalog.<) (pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) interval '10 seconds')
             AND EXISTS (
                 SELECT 1 FROM pg_catalog.pg_locks k
                  WHERE k.pid OPERATOR(pg_catalog.=) b.pid AND k.granted
                    AND k.locktype OPERATOR(pg_catalog.=) 'relation'
                    AND k.relation OPERATOR(pg_catalog.=) 'paydesk.requests'::pg_catalog.regclass
                    AND k.mode OPERATOR(pg_catalog.=) ANY (ARRAY['RowShareLock', 'RowExclusiveLock']))
             AND EXISTS (
                 SELECT 1 FROM paydesk.requests q
                  WHERE q.state OPERATOR(pg_catalog.=) 'approved'
                     OR (q.state OPERATOR(pg_catalog.=) 'executing' AND q.claimed_pid IS NOT NULL
                         AND NOT paydesk.claim_alive(q.claimed_pid, q.claimed_backend_start, q.claimed_by))))
            OR (b.state_change OPERATOR(pg_catalog.<) (pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) interval '65 seconds')
                AND EXISTS (
                    SELECT 1 FROM pg_catalog.pg_locks k
                      JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) k.relation
                      JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
                     WHERE k.pid OPERATOR(pg_catalog.=) b.pid AND k.granted
                       AND k.locktype OPERATOR(pg_catalog.=) 'relation'
                       AND n.nspname OPERATOR(pg_catalog.=) 'paydesk'
                       AND k.mode OPERATOR(pg_catalog.<>) 'AccessShareLock')))
) s (pid, who, state, state_change, waiter)
ORDER BY s.pid
$$;

-- F6. The signer's desk's locks (the merchant's order cache, a journal number or
--     intent) were advisory locks on keys any member computes (SHA-256 of public
--     strings), and pg_advisory_lock is any role's: a viewer holding one at session
--     level stalled every sync and every send of that number, and without
--     pg_signal_backend nothing could end it. Now each is a row lock on a table of the
--     owner's that no member holds any right on: only the team's function takes one,
--     held until the transaction ends as before. `paydesk.advisory_xact_lock` keeps its
--     name (the desks call it) and its 5 s waits; who holds a lock is who holds a lock
--     on that table (only that function's callers: a signer's session seen idle
--     holding one is a stall, as before).
CREATE TABLE paydesk.desk_locks (key bigint PRIMARY KEY);
REVOKE ALL ON paydesk.desk_locks FROM PUBLIC;

-- The member sessions (other than this one) inside a transaction that took one of the
-- desk's locks.
CREATE FUNCTION paydesk.desk_lock_holders()
RETURNS TABLE (pid integer, who text, state text, state_change timestamptz, signer boolean)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
    SELECT DISTINCT a.pid, a.usename::pg_catalog.text, a.state, a.state_change,
           pg_catalog.pg_has_role(a.usesysid, 'paydesk_signer', 'MEMBER')
      FROM pg_catalog.pg_locks k
      JOIN pg_catalog.pg_stat_activity a ON a.pid OPERATOR(pg_catalog.=) k.pid
     WHERE k.locktype OPERATOR(pg_catalog.=) 'relation' AND k.granted
       AND k.relation OPERATOR(pg_catalog.=) 'paydesk.desk_locks'::pg_catalog.regclass
       AND k.mode OPERATOR(pg_catalog.=) 'RowExclusiveLock'
       AND a.pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid()
       AND EXISTS (SELECT 1 FROM paydesk.logins l WHERE l.name OPERATOR(pg_catalog.=) a.usename::pg_catalog.text)
$$;
REVOKE ALL ON FUNCTION paydesk.desk_lock_holders() FROM PUBLIC;

CREATE OR REPLACE FUNCTION paydesk.advisory_xact_lock(key bigint) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '5s' AS $$
DECLARE h record; pids integer[]; changes timestamptz[]; left_alone integer := 0;
BEGIN
    BEGIN
        INSERT INTO paydesk.desk_locks AS l (key) VALUES (advisory_xact_lock.key)
            ON CONFLICT ON CONSTRAINT desk_locks_pkey DO UPDATE SET key = l.key;
        RETURN;
    EXCEPTION WHEN lock_not_available THEN
        NULL;
    END;
    PERFORM pg_catalog.pg_stat_clear_snapshot();
    SELECT pg_catalog.array_agg(c.pid), pg_catalog.array_agg(c.state_change) INTO pids, changes
      FROM paydesk.desk_lock_holders() c
     WHERE NOT c.signer
        OR c.state OPERATOR(pg_catalog.=) ANY (ARRAY['idle', 'idle in transaction', 'idle in transaction (aborted)']);
    IF pids IS NOT NULL THEN
        PERFORM pg_catalog.pg_sleep(0.25);
        PERFORM pg_catalog.pg_stat_clear_snapshot();
        FOR h IN
            SELECT c.pid, c.who, c.state, c.signer, a.usesysid,
                   pg_catalog.date_trunc('second', pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) c.state_change) AS since
              FROM paydesk.desk_lock_holders() c
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
        INSERT INTO paydesk.desk_locks AS l (key) VALUES (advisory_xact_lock.key)
            ON CONFLICT ON CONSTRAINT desk_locks_pkey DO UPDATE SET key = l.key;
    EXCEPTION WHEN lock_not_available THEN
        IF left_alone OPERATOR(pg_catalog.>) 0 AND paydesk.stall_grants_missing() OPERATOR(pg_catalog.<>) '' THEN
            RAISE EXCEPTION 'another member''s session holds a lock of the signer''s desk and the team''s owner may not end it (a superuser runs GRANT % TO %); nothing was changed, try again',
                paydesk.stall_grants_missing(), current_user
                USING ERRCODE = 'lock_not_available';
        END IF;
        RAISE;
    END;
END $$;
