-- Issue 30, items 6 and 7: no member stalls the others through the audit chain, and a
-- member's session keeps the bound the team gave it; item 4: a PIX payer's tax id and a
-- card payout's card number are sealed to the signers (paydesk.seal_key, at the end).
--
-- Until now every audited step took the chain's head row lock inside the member's own
-- transaction, so a member who opened a transaction, wrote one audit row and kept the
-- transaction open made every other member's audited step fail after its lock timeout.
-- Now a step writes its row to an inbox (no lock at all), and the rows are chained by
-- whoever seals next: the sealer takes the head's row lock with SKIP LOCKED, so a held
-- head makes nobody wait; the rows it would have sealed wait in the inbox for the next
-- sealer (any member's next step, any desk's list or verify).

CREATE TABLE paydesk.audit_inbox (
    n            bigserial PRIMARY KEY,
    at           bigint NOT NULL,
    profile      text NOT NULL,
    operator     text NOT NULL,
    operation    text NOT NULL,
    identifiers  text NOT NULL,
    result       text NOT NULL,
    latency_ms   bigint NOT NULL DEFAULT 0,
    db_user      text NOT NULL
);
REVOKE ALL ON paydesk.audit_inbox FROM PUBLIC;
REVOKE ALL ON SEQUENCE paydesk.audit_inbox_n_seq FROM PUBLIC;

-- Members write the log only through the team's functions (a member's own INSERT would
-- take the head's lock in the member's transaction).
DROP POLICY IF EXISTS audit_write ON paydesk.audit_log;
REVOKE INSERT ON paydesk.audit_log FROM paydesk_viewer, paydesk_support, paydesk_maker,
    paydesk_approver, paydesk_signer, paydesk_admin;
REVOKE INSERT (at, profile, operator, operation, identifiers, result, latency_ms)
    ON paydesk.audit_log FROM paydesk_viewer, paydesk_support, paydesk_maker,
    paydesk_approver, paydesk_signer, paydesk_admin;

-- A row's place in the chain. Only the sealer (the owner's code) inserts here: the
-- operator and database user are the inbox's, which the database set when the step was
-- taken. The head's lock is already the sealer's.
CREATE OR REPLACE FUNCTION paydesk.audit_seal() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE last_id bigint; last_hash text;
BEGIN
    PERFORM 1 FROM paydesk.audit_head h WHERE h.id = 1 FOR UPDATE;
    SELECT l.id, l.hash INTO last_id, last_hash FROM paydesk.audit_log l ORDER BY l.id DESC LIMIT 1;
    NEW.id := coalesce(last_id, 0) + 1;
    NEW.db_user := coalesce(NEW.db_user, session_user::pg_catalog.text);
    NEW.operator := NEW.db_user;
    NEW.prev_hash := coalesce(last_hash, '');
    NEW.hash := pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(pg_catalog.concat_ws(E'\x1f',
        NEW.prev_hash, NEW.id::pg_catalog.text, NEW.at::pg_catalog.text, NEW.profile, NEW.operator,
        NEW.operation, NEW.identifiers, NEW.result, NEW.latency_ms::pg_catalog.text, NEW.db_user),
        'UTF8')), 'hex');
    RETURN NEW;
END $$;

-- Chains the inbox's committed rows, oldest first, if nobody else is sealing (never
-- waits). Returns the chain id of inbox row `mine` when it was sealed now, else NULL.
-- In a transaction that is not READ COMMITTED it seals nothing (its snapshot could miss
-- rows another sealer chained since it began): the next sealer takes them.
CREATE FUNCTION paydesk.audit_seal_pending(mine bigint DEFAULT NULL) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE r paydesk.audit_inbox; sealed_id bigint; found_mine bigint;
BEGIN
    IF pg_catalog.current_setting('transaction_isolation') OPERATOR(pg_catalog.<>) 'read committed' THEN
        RETURN NULL;
    END IF;
    PERFORM 1 FROM paydesk.audit_head h WHERE h.id = 1 FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    FOR r IN SELECT * FROM paydesk.audit_inbox i ORDER BY i.n LOOP
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
REVOKE ALL ON FUNCTION paydesk.audit_seal_pending(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.audit_seal_pending(bigint) TO paydesk_viewer, paydesk_support,
    paydesk_maker, paydesk_approver, paydesk_signer, paydesk_admin;

-- A member's session keeps the bounds the team set on its role: a transaction left idle
-- ends after at most 60 s. PostgreSQL lets any role SET its own settings (and ALTER ROLE
-- itself SET them), so the team's functions check the session's value at every audited
-- step and refuse a member's session that turned it off or up.
CREATE FUNCTION paydesk.check_session_bounds() RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE idle bigint;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM paydesk.logins l WHERE l.name OPERATOR(pg_catalog.=) session_user::pg_catalog.text) THEN
        RETURN;
    END IF;
    SELECT s.setting::bigint INTO idle FROM pg_catalog.pg_settings s
     WHERE s.name OPERATOR(pg_catalog.=) 'idle_in_transaction_session_timeout';
    IF idle IS NULL OR idle OPERATOR(pg_catalog.<=) 0 OR idle OPERATOR(pg_catalog.>) 60000 THEN
        RAISE EXCEPTION 'idle_in_transaction_session_timeout: a member''s session keeps the team''s bound (1 ms to 60 s, now %); RESET it', idle;
    END IF;
END $$;
REVOKE ALL ON FUNCTION paydesk.check_session_bounds() FROM PUBLIC;

-- Written by the team's own triggers: a step of a request, with who took it.
CREATE OR REPLACE FUNCTION paydesk.audit(operation text, identifiers text, result text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
BEGIN
    PERFORM paydesk.check_session_bounds();
    INSERT INTO paydesk.audit_inbox (at, profile, operator, operation, identifiers, result, latency_ms, db_user)
    VALUES ((pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) * 1000)::bigint, 'team',
            session_user, audit.operation, audit.identifiers, audit.result, 0, session_user);
    PERFORM paydesk.audit_seal_pending();
END $$;
REVOKE ALL ON FUNCTION paydesk.audit(text, text, text) FROM PUBLIC;

-- How a desk appends: in its own name only. The row comes back as sealed, or, when
-- another session is sealing, with id 0 and no hash (it is chained by the next sealer).
CREATE OR REPLACE FUNCTION paydesk.audit_append(at bigint, profile text, operator text, operation text,
    identifiers text, result text, latency_ms bigint) RETURNS paydesk.audit_log
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE r paydesk.audit_log; mine bigint; sealed_id bigint;
BEGIN
    IF audit_append.operator IS DISTINCT FROM session_user::pg_catalog.text THEN
        RAISE EXCEPTION 'operator: the audit log''s operator is the database user who writes the row (%), not %',
            session_user, audit_append.operator;
    END IF;
    PERFORM paydesk.check_session_bounds();
    INSERT INTO paydesk.audit_inbox (at, profile, operator, operation, identifiers, result, latency_ms, db_user)
    VALUES (audit_append.at, audit_append.profile, session_user, audit_append.operation,
            audit_append.identifiers, audit_append.result, audit_append.latency_ms, session_user)
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

-- A member's transaction open more than 10 s (the wait's own bound) that holds what
-- another member waits for, or wrote, is ended when a member's step waited its bound: the bound a member cannot take off their session
-- (a member may SET their idle timeout off right after a step, or keep the transaction
-- busy with pg_sleep). Any member's desk calls this when its step waited its bound, and
-- the signer's worker at each round; each one ended is audited. It needs the owner to
-- hold pg_signal_backend and pg_read_all_stats (to see and end other roles' sessions):
-- taken here on PostgreSQL 15 (a CREATEROLE role may grant them); from 16 on a
-- superuser grants them (README), else only the members' own idle bound holds.
DO $$
BEGIN
    EXECUTE pg_catalog.format('GRANT pg_signal_backend, pg_read_all_stats TO %I', current_user);
EXCEPTION WHEN others THEN
    RAISE WARNING 'the owner cannot take pg_signal_backend and pg_read_all_stats (%): have a superuser GRANT pg_signal_backend, pg_read_all_stats TO %', SQLERRM, current_user;
END $$;

CREATE FUNCTION paydesk.end_stalls() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE h record; n integer := 0;
BEGIN
    -- Other members' sessions (never the caller's own) in a transaction open more than 10 s that
    -- holds what another session waits for now, or that wrote (holds a transaction id,
    -- so row locks: the one who waited may have given up already). A read-only
    -- transaction (a long verify, a report) is never ended.
    FOR h IN
        SELECT b.pid, b.usename::pg_catalog.text AS who,
               pg_catalog.date_trunc('second', pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) b.xact_start) AS held
          FROM pg_catalog.pg_stat_activity b
         WHERE b.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()
           AND b.usename OPERATOR(pg_catalog.<>) session_user
           AND b.xact_start OPERATOR(pg_catalog.<) (pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) interval '10 seconds')
           AND EXISTS (SELECT 1 FROM paydesk.logins l WHERE l.name OPERATOR(pg_catalog.=) b.usename::pg_catalog.text)
           AND (b.backend_xid IS NOT NULL
                OR EXISTS (SELECT 1 FROM pg_catalog.pg_stat_activity w
                            WHERE b.pid OPERATOR(pg_catalog.=) ANY (pg_catalog.pg_blocking_pids(w.pid))))
    LOOP
        IF pg_catalog.pg_terminate_backend(h.pid) THEN
            n := n OPERATOR(pg_catalog.+) 1;
            PERFORM paydesk.audit('team.stall.end', 'member=' OPERATOR(pg_catalog.||) h.who,
                'ended: held locks in a transaction open ' OPERATOR(pg_catalog.||) h.held::pg_catalog.text);
        END IF;
    END LOOP;
    RETURN n;
END $$;
REVOKE ALL ON FUNCTION paydesk.end_stalls() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.end_stalls() TO paydesk_viewer, paydesk_support,
    paydesk_maker, paydesk_approver, paydesk_signer, paydesk_admin;

-- Issue 30, item 4: what a signer alone may read (a PIX payer's tax id) is sealed to the
-- signers: encrypted by the maker's desk to the merchant's public key, whose private half
-- only the signers' desks hold. A signer's desk publishes it here when it connects (and
-- puts it back, audited, should anyone have put another in its place).
CREATE TABLE paydesk.seal_key (
    id      integer PRIMARY KEY CHECK (id = 1),
    spki    text NOT NULL,
    set_by  text NOT NULL,
    set_at  timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON paydesk.seal_key FROM PUBLIC;
GRANT SELECT ON paydesk.seal_key TO paydesk_viewer, paydesk_support, paydesk_maker,
    paydesk_approver, paydesk_signer, paydesk_admin;

CREATE FUNCTION paydesk.publish_seal_key(spki text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE before text;
BEGIN
    IF NOT pg_catalog.pg_has_role(session_user, 'paydesk_signer', 'MEMBER') THEN
        RAISE EXCEPTION 'only a signer publishes the key requests are sealed to';
    END IF;
    IF publish_seal_key.spki !~ '^[A-Za-z0-9+/=]+$'
       OR pg_catalog.length(publish_seal_key.spki) NOT BETWEEN 40 AND 4000 THEN
        RAISE EXCEPTION 'spki: the merchant''s public key, base64 DER';
    END IF;
    SELECT k.spki INTO before FROM paydesk.seal_key k WHERE k.id = 1 FOR UPDATE;
    IF before IS NOT DISTINCT FROM publish_seal_key.spki THEN
        RETURN;
    END IF;
    INSERT INTO paydesk.seal_key (id, spki, set_by) VALUES (1, publish_seal_key.spki, session_user)
        ON CONFLICT (id) DO UPDATE SET spki = EXCLUDED.spki, set_by = EXCLUDED.set_by, set_at = now();
    PERFORM paydesk.audit('team.seal_key', 'by=' || session_user,
        CASE WHEN before IS NULL THEN 'published' ELSE 'replaced a key that was not this signer''s merchant key' END);
END $$;
REVOKE ALL ON FUNCTION paydesk.publish_seal_key(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.publish_seal_key(text) TO paydesk_signer;

-- Card payouts through the team: the card number sealed to the signers as the tax id is
-- (sealedCardNo in the row's form, never cardNo). A CLABE payout stays in MXN, now held
-- row by row (a card payout's request is in the card's currency).
ALTER TABLE paydesk.requests DROP CONSTRAINT IF EXISTS requests_payouts_in_mxn;
CREATE OR REPLACE FUNCTION paydesk.request_new() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
BEGIN
    NEW.maker := session_user;
    NEW.created_at := now();
    NEW.approvals_needed := paydesk.approvals_needed(NEW.operation, NEW.currency, NEW.total);
    NEW.state := CASE WHEN NEW.approvals_needed = 0 THEN 'approved' ELSE 'waiting' END;
    NEW.decided_at := NULL;
    NEW.claimed_by := NULL; NEW.claimed_pid := NULL; NEW.claimed_at := NULL;
    NEW.finished_at := NULL; NEW.outcome := NULL;
    RETURN NEW;
END $$;
CREATE OR REPLACE FUNCTION paydesk.request_row_matches_form() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE r paydesk.requests; amount numeric; number text;
BEGIN
    SELECT * INTO r FROM paydesk.requests q WHERE q.id = NEW.request_id;
    BEGIN
        amount := (NEW.form ->> 'amount')::pg_catalog.numeric;
    EXCEPTION WHEN others THEN
        RAISE EXCEPTION 'row %: its form''s amount % is not a decimal', NEW.row_no, NEW.form ->> 'amount';
    END;
    IF amount IS DISTINCT FROM NEW.amount THEN
        RAISE EXCEPTION 'row %: its form sends % but the row says %', NEW.row_no, amount, NEW.amount;
    END IF;
    IF pg_catalog.upper(NEW.form ->> 'currency') IS DISTINCT FROM r.currency THEN
        RAISE EXCEPTION 'row %: its form sends % but the request is in %',
            NEW.row_no, NEW.form ->> 'currency', r.currency;
    END IF;
    number := coalesce(NEW.form ->> 'merOrderNo', NEW.form ->> 'reference');
    IF number IS DISTINCT FROM NEW.mer_order_no THEN
        RAISE EXCEPTION 'row %: its form sends number % but the row is %', NEW.row_no, number, NEW.mer_order_no;
    END IF;
    IF r.operation = 'payout' THEN
        IF (NEW.form ->> 'kind') IS NOT DISTINCT FROM 'CLABE' THEN
            IF r.currency <> 'MXN' THEN
                RAISE EXCEPTION 'row %: currency: a CLABE payout is in MXN (a CLABE is a Mexican account), not %',
                    NEW.row_no, r.currency;
            END IF;
        ELSIF (NEW.form ->> 'kind') IS NOT DISTINCT FROM 'CARD' THEN
            IF coalesce(NEW.form ->> 'cardNo', '') <> '' OR coalesce(NEW.form ->> 'sealedCardNo', '') = '' THEN
                RAISE EXCEPTION 'row %: cardNo: a card number is sealed to the signers (sealedCardNo), never stored readable', NEW.row_no;
            END IF;
        ELSE
            RAISE EXCEPTION 'row %: kind: a team payout is a CLABE or a card payout, not %', NEW.row_no, NEW.form ->> 'kind';
        END IF;
    END IF;
    RETURN NEW;
END $$;

-- Every SECURITY DEFINER function of the team: pg_temp last, a bound on lock waits.
DO $$
DECLARE f regprocedure;
BEGIN
    FOR f IN SELECT p.oid::regprocedure FROM pg_catalog.pg_proc p
             WHERE p.pronamespace = 'paydesk'::regnamespace AND p.prosecdef LOOP
        EXECUTE pg_catalog.format('ALTER FUNCTION %s SET search_path = pg_catalog, paydesk, pg_temp', f);
        EXECUTE pg_catalog.format('ALTER FUNCTION %s SET lock_timeout = %L', f, '10s');
    END LOOP;
END $$;
