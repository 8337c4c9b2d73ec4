-- What the eighth hostile review found about the desk's locks (notes: review-r8, R8-9),
-- attacked as the signer who would use it with plain SQL first
-- (tests/team/team_review_r8.rs). As 0022, the function pins its search_path (pg_temp
-- last), is revoked from PUBLIC and takes a lock bound.
--
-- R8-9 (0022). A member's session holding one of the desk's locks was ended by the
-- next member waiting for it when the holder was not a signer, or was a signer's
-- session left idle. A signer with psql took the day's lock of a currency (its key is
-- computable: journal.rs `lock_key("day", …)`) in a transaction kept busy
-- (`SELECT pg_sleep(86400)`), and every worker's payout in that currency failed after
-- its lock wait, all day. Now a signer's session whose transaction has run more than
-- ten seconds while it holds a desk lock someone waits for is ended too (audited, as
-- the others). A desk holds these locks for one short transaction (a journal write,
-- a sync's page of orders): milliseconds, at most its own lock waits (five seconds
-- each); a desk ended there only fails that write, rolled back before anything was
-- sent (an entry is written before its send), and tries again.
CREATE OR REPLACE FUNCTION paydesk.advisory_xact_lock(key bigint) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '5s' AS $$
DECLARE h record; pids integer[]; changes timestamptz[]; left_alone integer := 0;
    held_long CONSTANT interval := '10 seconds';
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
      LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid OPERATOR(pg_catalog.=) c.pid
     WHERE NOT c.signer
        OR c.state OPERATOR(pg_catalog.=) ANY (ARRAY['idle', 'idle in transaction', 'idle in transaction (aborted)'])
        OR a.xact_start OPERATOR(pg_catalog.<) (pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) held_long);
    IF pids IS NOT NULL THEN
        PERFORM pg_catalog.pg_sleep(0.25);
        PERFORM pg_catalog.pg_stat_clear_snapshot();
        FOR h IN
            SELECT c.pid, c.who, c.state, c.signer, a.usesysid,
                   pg_catalog.date_trunc('second', pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) c.state_change) AS since,
                   pg_catalog.date_trunc('second', pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) a.xact_start) AS running,
                   (c.state OPERATOR(pg_catalog.=) ANY (ARRAY['idle', 'idle in transaction', 'idle in transaction (aborted)'])) AS idle
              FROM paydesk.desk_lock_holders() c
              JOIN pg_catalog.pg_stat_activity a ON a.pid OPERATOR(pg_catalog.=) c.pid
             WHERE c.pid OPERATOR(pg_catalog.=) ANY (pids)
               AND (NOT c.signer
                    OR (c.state OPERATOR(pg_catalog.=) ANY (ARRAY['idle', 'idle in transaction', 'idle in transaction (aborted)'])
                        AND c.state_change OPERATOR(pg_catalog.=) changes[pg_catalog.array_position(pids, c.pid)])
                    OR a.xact_start OPERATOR(pg_catalog.<) (pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) held_long))
        LOOP
            IF NOT paydesk.owner_may_end(h.usesysid) THEN
                left_alone := left_alone OPERATOR(pg_catalog.+) 1;
                CONTINUE;
            END IF;
            IF pg_catalog.pg_terminate_backend(h.pid, 2000) THEN
                PERFORM paydesk.audit('team.stall.end', 'member=' OPERATOR(pg_catalog.||) h.who,
                    'ended: ' OPERATOR(pg_catalog.||)
                    CASE WHEN h.signer AND NOT coalesce(h.idle, false)
                         THEN 'a transaction busy for ' OPERATOR(pg_catalog.||) coalesce(h.running::pg_catalog.text, '?')
                         ELSE coalesce(h.state, 'a session the owner cannot see')
                              OPERATOR(pg_catalog.||) coalesce(' for ' OPERATOR(pg_catalog.||) h.since::pg_catalog.text, '') END
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
REVOKE ALL ON FUNCTION paydesk.advisory_xact_lock(bigint) FROM PUBLIC;

-- R8-5 (and R8-1, R8-6 for psql): in a team, every payout a signer's desk journals is a
-- row of an approved request that this signer's worker is executing (the worker claims
-- the request, then sends each row under the row's number, its amount and the
-- request's currency: crates/team `execute_row`; the desk refuses any other money
-- movement on a team profile, `Desk::approved_if_team`). The database now holds that
-- for a member too: a new payout entry (`v2.payout`, `v1.payout`), and a queued one
-- taken up for a send (pending -> sending), name the number of a row of a payout
-- request that is executing, claimed by this session's login, with the row's amount
-- (`sourceAmount`) and the request's currency (`currencyCode`). A signer with psql
-- plants no payout entry under a row's number (the day's sum misread, a row made
-- Failed) and sends no payout no request approved. Payins and card moves are not held
-- here. The database's owner is not held.
CREATE FUNCTION paydesk.journal_payout_approved(number text, request text) RETURNS boolean
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
           AND q.operation OPERATOR(pg_catalog.=) 'payout'
           AND q.state OPERATOR(pg_catalog.=) 'executing'
           AND q.claimed_by OPERATOR(pg_catalog.=) session_user::pg_catalog.text
           AND rr.amount OPERATOR(pg_catalog.=) sent
           AND q.currency OPERATOR(pg_catalog.=) cur);
END $$;
REVOKE ALL ON FUNCTION paydesk.journal_payout_approved(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.journal_payout_approved(text, text) TO paydesk_signer;

-- Named to fire after the journal's other BEFORE triggers (PostgreSQL fires them in
-- name order), so an entry those refuse is refused for their reason first.
CREATE FUNCTION paydesk.journal_x_payout_approved() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, paydesk, pg_temp AS $$
BEGIN
    IF NEW.operation OPERATOR(pg_catalog.<>) ALL (ARRAY['v2.payout', 'v1.payout'])
       OR paydesk.journal_owner_session() THEN
        RETURN NEW;
    END IF;
    IF TG_OP OPERATOR(pg_catalog.=) 'UPDATE'
       AND NOT (OLD.status OPERATOR(pg_catalog.=) 'pending' AND NEW.status OPERATOR(pg_catalog.=) 'sending') THEN
        RETURN NEW;
    END IF;
    IF NOT paydesk.journal_payout_approved(NEW.mer_order_no, NEW.request) THEN
        RAISE EXCEPTION 'approval: payout % is not a row of an approved request this signer''s worker is executing (its number, amount and currency): a team''s payouts are sent only as approved requests', NEW.mer_order_no
            USING ERRCODE = '42501';
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.journal_x_payout_approved() FROM PUBLIC;
CREATE TRIGGER journal_x_payout_approved BEFORE INSERT OR UPDATE ON paydesk.journal
    FOR EACH ROW EXECUTE FUNCTION paydesk.journal_x_payout_approved();
