-- What the second hostile review of issue 30's changes found (notes: review-team30-r2).
--
-- F1. Once a row's trade number was set (by the order recorded for it), the worker
--     could not write the row's outcome: its outcome comes with no trade number for an
--     unknown row, or an accepted one the gateway gave none, and clearing a set number
--     raised. The request stayed executing. Now a blank new value keeps the number set
--     (the worker also writes `coalesce($4, trade_no)`); changing it still raises.
-- F2. A signer could set an unsent row's trade number while its request was only
--     approved, so the real payment made later was labelled as made outside: blank to
--     set now only while the request is executing or done, and only such a request's
--     row made an order (an approved request's rows are not sent yet).
-- F5. A rejected or failed row claimed an order: neither `made_by_request` nor blank to
--     set take such a row any more.
-- F4. The admin's changes to the team's settings (default approvals, idle lock) were
--     not audited: every update of paydesk.team is, as the rules' are.
-- F3. A member holding a relation lock stronger than ROW EXCLUSIVE on a team table
--     (a signer's LOCK TABLE on the journal) while running a statement is a stall that
--     end_stalls ends. What is left: the table-level UPDATE grants that allow the LOCK
--     stay; replacing them with column-level ones is the fuller fix.

CREATE OR REPLACE FUNCTION paydesk.row_moves() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
BEGIN
    IF (NEW.request_id, NEW.row_no, NEW.mer_order_no, NEW.amount, NEW.form, NEW.beneficiary)
       IS DISTINCT FROM (OLD.request_id, OLD.row_no, OLD.mer_order_no, OLD.amount, OLD.form, OLD.beneficiary) THEN
        RAISE EXCEPTION 'what a request row asks never changes';
    END IF;
    -- A set trade number is kept when no new one comes (an outcome without one).
    IF OLD.trade_no IS NOT NULL AND NEW.trade_no IS NULL THEN
        NEW.trade_no := OLD.trade_no;
    END IF;
    IF OLD.trade_no IS NOT NULL AND NEW.trade_no IS DISTINCT FROM OLD.trade_no THEN
        RAISE EXCEPTION 'request % row %: its trade number % is set, and never changes', OLD.request_id, OLD.row_no, OLD.trade_no;
    END IF;
    IF NEW.live IS DISTINCT FROM OLD.live THEN
        IF NOT (OLD.live AND NOT NEW.live)
           OR (NEW.status, NEW.trade_no, NEW.message) IS DISTINCT FROM (OLD.status, OLD.trade_no, OLD.message)
           OR OLD.status <> 'waiting'
           OR NOT EXISTS (SELECT 1 FROM paydesk.requests WHERE id = OLD.request_id AND state = 'rejected') THEN
            RAISE EXCEPTION 'request % row %: a number is freed only by its request''s rejection, and never taken back',
                OLD.request_id, OLD.row_no;
        END IF;
        RETURN NEW;
    END IF;
    -- Blank to set, alone: the order recorded for a row sent (its request executing or
    -- done), never for a rejected or failed row.
    IF OLD.trade_no IS NULL AND NEW.trade_no IS NOT NULL AND OLD.live
       AND (NEW.status, NEW.message) IS NOT DISTINCT FROM (OLD.status, OLD.message)
       AND OLD.status IS NOT NULL AND OLD.status <> ALL (ARRAY['rejected', 'failed'])
       AND EXISTS (SELECT 1 FROM paydesk.requests WHERE id = OLD.request_id
                      AND state = ANY (ARRAY['executing', 'done'])) THEN
        RETURN NEW;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM paydesk.requests WHERE id = OLD.request_id AND state = 'executing') THEN
        RAISE EXCEPTION 'a row''s outcome is written only while its request is executing';
    END IF;
    NEW.updated_at := now();
    RETURN NEW;
END $$;

-- The request row that made an order: one sent (its request executing or done, as
-- blank to set above asks), never a rejected or failed row.
CREATE OR REPLACE FUNCTION paydesk.made_by_request(number text, trade_no text, amount numeric, cur text)
RETURNS TABLE (kind text, requested_at bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
    SELECT CASE q.operation WHEN 'payin' THEN 'payin' WHEN 'top_up' THEN 'topUp'
                            WHEN 'withdraw' THEN 'withdraw' ELSE 'payout' END,
           (pg_catalog.date_part('epoch', q.created_at) OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8
      FROM paydesk.request_rows rr
      JOIN paydesk.requests q ON q.id OPERATOR(pg_catalog.=) rr.request_id
     WHERE rr.mer_order_no OPERATOR(pg_catalog.=) made_by_request.number
       AND rr.live
       AND rr.status IS NOT NULL
       AND rr.status OPERATOR(pg_catalog.<>) ALL (ARRAY['rejected', 'failed'])
       AND q.state OPERATOR(pg_catalog.=) ANY (ARRAY['executing', 'done'])
       AND (rr.trade_no IS NULL OR rr.trade_no OPERATOR(pg_catalog.=) made_by_request.trade_no)
       AND rr.amount OPERATOR(pg_catalog.=) made_by_request.amount
       AND pg_catalog.upper(q.currency) OPERATOR(pg_catalog.=) pg_catalog.upper(made_by_request.cur)
     LIMIT 1
$$;
REVOKE ALL ON FUNCTION paydesk.made_by_request(text, text, numeric, text) FROM PUBLIC;

-- F4. Every change to the team's settings is audited, with the values before and after
-- (an explicit 0 default approvals by the admin is allowed, and on the record).
CREATE FUNCTION paydesk.team_audit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
BEGIN
    PERFORM paydesk.audit('team.settings.update',
        pg_catalog.format('default_approvals=%s idle_lock_minutes=%s mer_no=%s',
            OLD.default_approvals, OLD.idle_lock_minutes, OLD.mer_no),
        pg_catalog.format('default_approvals=%s idle_lock_minutes=%s mer_no=%s',
            NEW.default_approvals, NEW.idle_lock_minutes, NEW.mer_no));
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.team_audit() FROM PUBLIC;
CREATE TRIGGER team_audit BEFORE UPDATE ON paydesk.team
    FOR EACH ROW EXECUTE FUNCTION paydesk.team_audit();

-- F3. A member's desk never takes a relation lock stronger than ROW EXCLUSIVE on the
-- team's tables (the owner's migrations do), yet table-level UPDATE lets a signer LOCK
-- the journal and stall every new request while running a statement. The sessions that
-- stall others are now also those of members holding such a lock, busy or not.
CREATE OR REPLACE FUNCTION paydesk.stalling_sessions()
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
$$;
REVOKE ALL ON FUNCTION paydesk.stalling_sessions() FROM PUBLIC;
