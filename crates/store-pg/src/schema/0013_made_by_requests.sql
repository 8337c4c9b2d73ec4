-- Issue 30, what the hostile review left: F6 (who made an order) and item 7's last
-- hole (a busy member holding a request).
--
-- F6. Whether the team made an order ("made outside this team" otherwise, never counted
--     as a payin) is no longer the signer's to say. A signer wrote `made_at` and `kind`
--     on `paydesk.orders` freely, so an order paid around the team could be labelled as
--     the team's, or the reverse. Now nobody but the database's owner writes those two
--     columns (nor an order's numbers once cached): `paydesk.record_made` labels an
--     order from the request row that made it: a live row of an approved request (being
--     executed, done, or given back to be taken up again) with the order's number,
--     amount and currency, and no other trade number. Its kind is the request's operation; its time the signer's, bounded by the
--     request's making and now. An order no such row made is cached as made outside.
--     Labels already written are checked against the request rows once, here.

-- The order cache's columns a signer writes: all but the label and the numbers.
REVOKE INSERT, UPDATE ON paydesk.orders FROM paydesk_signer;
DO $$
DECLARE ins text; upd text;
BEGIN
    SELECT pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ', ' ORDER BY a.attnum)
      INTO ins
      FROM pg_catalog.pg_attribute a
     WHERE a.attrelid = 'paydesk.orders'::regclass AND a.attnum > 0 AND NOT a.attisdropped
       AND a.attname NOT IN ('id', 'kind', 'made_at');
    SELECT pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ', ' ORDER BY a.attnum)
      INTO upd
      FROM pg_catalog.pg_attribute a
     WHERE a.attrelid = 'paydesk.orders'::regclass AND a.attnum > 0 AND NOT a.attisdropped
       AND a.attname NOT IN ('id', 'kind', 'made_at', 'mer_no', 'trade_no', 'mer_order_no');
    EXECUTE pg_catalog.format('GRANT INSERT (%s) ON paydesk.orders TO paydesk_signer', ins);
    EXECUTE pg_catalog.format('GRANT UPDATE (%s) ON paydesk.orders TO paydesk_signer', upd);
END $$;

-- The request row of the team's that made the order `trade_no` with number `number`,
-- `amount` in `cur`: its request's operation as the order's kind, and when the request
-- was made (UTC millis). No row when the team made no such order.
CREATE FUNCTION paydesk.made_by_request(number text, trade_no text, amount numeric, cur text)
RETURNS TABLE (kind text, requested_at bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
    SELECT CASE q.operation WHEN 'payin' THEN 'payin' WHEN 'top_up' THEN 'topUp'
                            WHEN 'withdraw' THEN 'withdraw' ELSE 'payout' END,
           (pg_catalog.date_part('epoch', q.created_at) OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8
      FROM paydesk.request_rows rr
      JOIN paydesk.requests q ON q.id OPERATOR(pg_catalog.=) rr.request_id
     WHERE rr.mer_order_no OPERATOR(pg_catalog.=) made_by_request.number
       AND rr.live
       AND q.state OPERATOR(pg_catalog.=) ANY (ARRAY['approved', 'executing', 'done'])
       AND (rr.trade_no IS NULL OR rr.trade_no OPERATOR(pg_catalog.=) made_by_request.trade_no)
       AND rr.amount OPERATOR(pg_catalog.=) made_by_request.amount
       AND q.currency OPERATOR(pg_catalog.=) pg_catalog.upper(made_by_request.cur)
     LIMIT 1
$$;
REVOKE ALL ON FUNCTION paydesk.made_by_request(text, text, numeric, text) FROM PUBLIC;

-- An order the signer's desk made (the gateway accepted a request row's send): cached
-- at once when `state` is given and the cache does not hold it yet, and labelled as the
-- team's when a request row made it. Returns whether it was cached or labelled now.
-- The database's owner (who writes these tables anyway) labels as asked: an import.
CREATE FUNCTION paydesk.record_made(mer_no bigint, trade_no text, mer_order_no text, kind text,
    state bigint, method text, currency text, amount numeric, amount_e4 bigint, made_at bigint)
RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE
    owner boolean := session_user::pg_catalog.text OPERATOR(pg_catalog.=)
        (SELECT n.nspowner::pg_catalog.regrole::pg_catalog.text FROM pg_catalog.pg_namespace n
          WHERE n.nspname OPERATOR(pg_catalog.=) 'paydesk');
    team_mer bigint;
    made record;
    label_kind text;
    label_at bigint;
    now_ms bigint := (pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8;
    n integer;
BEGIN
    IF NOT owner AND NOT pg_catalog.pg_has_role(session_user, 'paydesk_signer', 'MEMBER') THEN
        RAISE EXCEPTION 'only a signer''s desk records the orders it made';
    END IF;
    IF record_made.mer_no IS NULL OR record_made.trade_no IS NULL OR record_made.mer_order_no IS NULL
       OR record_made.currency IS NULL OR record_made.amount IS NULL OR record_made.made_at IS NULL
       OR record_made.method IS NULL OR record_made.amount_e4 IS NULL THEN
        RAISE EXCEPTION 'a made order needs its merchant, numbers, amount, currency, method and time';
    END IF;
    IF pg_catalog.length(record_made.trade_no) NOT BETWEEN 1 AND 128
       OR pg_catalog.length(record_made.mer_order_no) NOT BETWEEN 1 AND 128
       OR pg_catalog.length(record_made.method) OPERATOR(pg_catalog.>) 64
       OR pg_catalog.length(record_made.currency) OPERATOR(pg_catalog.>) 8 THEN
        RAISE EXCEPTION 'trade_no, mer_order_no: 1 to 128 characters; method at most 64; currency at most 8';
    END IF;
    IF owner THEN
        IF record_made.kind IS NULL OR NOT (record_made.kind OPERATOR(pg_catalog.=) ANY (ARRAY['payin', 'payout', 'topUp', 'withdraw'])) THEN
            RAISE EXCEPTION 'kind: one of payin, payout, topUp, withdraw';
        END IF;
        label_kind := record_made.kind;
        label_at := record_made.made_at;
    ELSE
        SELECT t.mer_no INTO team_mer FROM paydesk.team t WHERE t.id OPERATOR(pg_catalog.=) 1;
        IF team_mer IS DISTINCT FROM record_made.mer_no THEN
            RAISE EXCEPTION 'merNo: the team works for merchant %, not %', team_mer, record_made.mer_no;
        END IF;
        SELECT * INTO made FROM paydesk.made_by_request(record_made.mer_order_no, record_made.trade_no,
            record_made.amount, record_made.currency);
        -- One order per request row: not when another order of the merchant is labelled
        -- as made under that number already (an order paid around the team, given the
        -- number of one the team paid, is not the team's).
        IF FOUND AND NOT EXISTS (
               SELECT 1 FROM paydesk.orders o
                WHERE o.mer_no OPERATOR(pg_catalog.=) record_made.mer_no
                  AND o.mer_order_no OPERATOR(pg_catalog.=) record_made.mer_order_no
                  AND o.trade_no OPERATOR(pg_catalog.<>) record_made.trade_no
                  AND o.made_at IS NOT NULL) THEN
            label_kind := made.kind;
            label_at := LEAST(GREATEST(record_made.made_at, made.requested_at), now_ms);
        END IF;
    END IF;
    IF record_made.state IS NOT NULL THEN
        INSERT INTO paydesk.orders (mer_no, trade_no, mer_order_no, state, method, currency, source_amount,
                amount_e4, created_at, synced_at, signature_verified, kind, made_at)
        VALUES (record_made.mer_no, record_made.trade_no, record_made.mer_order_no, record_made.state,
                record_made.method, record_made.currency, record_made.amount, record_made.amount_e4,
                coalesce(label_at, LEAST(record_made.made_at, now_ms)), 0, false,
                coalesce(label_kind, ''), label_at)
        ON CONFLICT ON CONSTRAINT orders_mer_no_trade_no_key DO NOTHING;
        GET DIAGNOSTICS n = ROW_COUNT;
        IF n OPERATOR(pg_catalog.=) 1 THEN
            RETURN true;
        END IF;
    END IF;
    IF label_kind IS NULL THEN
        RETURN false;
    END IF;
    -- Labels the row of this very order (same merchant, trade and order numbers, and for
    -- a signer the approved amount and currency), never another; the method fills only
    -- a blank one.
    UPDATE paydesk.orders o
       SET kind = label_kind, made_at = label_at, created_at = label_at,
           method = CASE WHEN o.method OPERATOR(pg_catalog.=) '' THEN record_made.method ELSE o.method END
     WHERE o.mer_no OPERATOR(pg_catalog.=) record_made.mer_no
       AND o.trade_no OPERATOR(pg_catalog.=) record_made.trade_no
       AND o.mer_order_no OPERATOR(pg_catalog.=) record_made.mer_order_no
       AND (owner OR (o.source_amount OPERATOR(pg_catalog.=) record_made.amount
                      AND o.currency OPERATOR(pg_catalog.=) pg_catalog.upper(record_made.currency)));
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n OPERATOR(pg_catalog.=) 1;
END $$;
REVOKE ALL ON FUNCTION paydesk.record_made(bigint, text, text, text, bigint, text, text, numeric, bigint, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.record_made(bigint, text, text, text, bigint, text, text, numeric, bigint, bigint)
    TO paydesk_signer;

-- Labels written before: kept only where a request row made the order.
UPDATE paydesk.orders o SET kind = '', made_at = NULL
 WHERE (o.made_at IS NOT NULL OR o.kind OPERATOR(pg_catalog.<>) '')
   AND NOT EXISTS (SELECT 1 FROM paydesk.made_by_request(o.mer_order_no, o.trade_no, o.source_amount, o.currency));

-- Item 7, what was left: a member holding a request's row (their decision's
-- transaction left open, a statement kept running in it with their own statement
-- timeout off) made every other approver's decision on it fail after 10 s, and a desk
-- no longer ended such a stall itself (the member waited on was no longer waiting when
-- it asked `end_stalls`). Now the decision's own step takes the row through
-- `paydesk.lock_request_row`, which waits 5 s at a time and, between two waits, ends
-- the member session holding it (found by the row's locking transaction): when idle
-- (seen so twice a quarter second apart, as `end_stalls` does), or when its transaction
-- has been open 20 s or more with a statement running (an approval's transaction takes
-- milliseconds: a large bulk request never holds another request's row). A signer's
-- session is never ended by it. Each end is in the team's log. After 30 s the step
-- fails, changing nothing.
-- The transactions sharing a row lock whose locker is `multi` (a multixact), or none
-- when it is a plain transaction (or no longer known).
CREATE FUNCTION paydesk.lockers_of(multi xid) RETURNS xid[]
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE out xid[];
BEGIN
    SELECT pg_catalog.array_agg(m.xid) INTO out FROM pg_catalog.pg_get_multixact_members(lockers_of.multi) m;
    RETURN coalesce(out, ARRAY[]::xid[]);
EXCEPTION WHEN others THEN
    RETURN ARRAY[]::xid[];
END $$;
REVOKE ALL ON FUNCTION paydesk.lockers_of(xid) FROM PUBLIC;

CREATE FUNCTION paydesk.lock_request_row(request bigint) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE holder xid; h record; again record; started timestamptz := pg_catalog.clock_timestamp();
        next_look timestamptz := pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) interval '5 seconds';
BEGIN
    IF lock_request_row.request IS NULL THEN
        RETURN false;
    END IF;
    LOOP
        -- Taken by this transaction itself (no subtransaction: the row's locker is the
        -- step's own transaction), or skipped while another holds it.
        PERFORM 1 FROM paydesk.requests r WHERE r.id OPERATOR(pg_catalog.=) lock_request_row.request
            FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
            RETURN true;
        END IF;
        IF NOT EXISTS (SELECT 1 FROM paydesk.requests r WHERE r.id OPERATOR(pg_catalog.=) lock_request_row.request) THEN
            RETURN false;
        END IF;
        IF pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>) (started OPERATOR(pg_catalog.+) interval '30 seconds') THEN
            RAISE EXCEPTION 'request %: another member''s session has held it for 30 s; nothing was changed, try again', lock_request_row.request
                USING ERRCODE = 'lock_not_available';
        END IF;
        IF pg_catalog.clock_timestamp() OPERATOR(pg_catalog.<) next_look THEN
            PERFORM pg_catalog.pg_sleep(0.1);
            CONTINUE;
        END IF;
        next_look := pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) interval '1 second';
        -- Who holds it: the session whose transaction (or one of its subtransactions,
        -- or one of a shared lock's members) is the row's locker.
        SELECT r.xmax INTO holder FROM paydesk.requests r WHERE r.id OPERATOR(pg_catalog.=) lock_request_row.request;
        PERFORM pg_catalog.pg_stat_clear_snapshot();
        SELECT a.pid, a.usename::pg_catalog.text AS who, a.state, a.state_change, a.xact_start INTO h
          FROM pg_catalog.pg_locks l
          JOIN pg_catalog.pg_stat_activity a ON a.pid OPERATOR(pg_catalog.=) l.pid
         WHERE l.locktype OPERATOR(pg_catalog.=) 'transactionid' AND l.granted
           AND l.mode OPERATOR(pg_catalog.=) 'ExclusiveLock'
           AND (l.transactionid OPERATOR(pg_catalog.=) holder
                OR l.transactionid OPERATOR(pg_catalog.=) ANY (paydesk.lockers_of(holder)))
           AND a.pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid()
           AND a.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()
           AND EXISTS (SELECT 1 FROM paydesk.logins g WHERE g.name OPERATOR(pg_catalog.=) a.usename::pg_catalog.text)
           AND NOT pg_catalog.pg_has_role(a.usesysid, 'paydesk_signer', 'MEMBER')
         LIMIT 1;
        CONTINUE WHEN NOT FOUND;
        IF h.state OPERATOR(pg_catalog.=) ANY (ARRAY['idle', 'idle in transaction', 'idle in transaction (aborted)']) THEN
            PERFORM pg_catalog.pg_sleep(0.25);
            PERFORM pg_catalog.pg_stat_clear_snapshot();
            SELECT a.state, a.state_change INTO again FROM pg_catalog.pg_stat_activity a
             WHERE a.pid OPERATOR(pg_catalog.=) h.pid;
            CONTINUE WHEN NOT FOUND OR again.state_change IS DISTINCT FROM h.state_change;
        ELSIF h.xact_start OPERATOR(pg_catalog.>) (pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) interval '20 seconds') THEN
            CONTINUE;
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

CREATE OR REPLACE FUNCTION paydesk.decision_new() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE r paydesk.requests;
BEGIN
    NEW.member := session_user;
    NEW.decided_at := pg_catalog.now();
    IF NOT pg_catalog.pg_has_role(session_user, 'paydesk_approver', 'MEMBER') THEN
        RAISE EXCEPTION 'only an approver approves or rejects requests';
    END IF;
    -- The request's row, waited for without letting another member's session hold it.
    IF NOT paydesk.lock_request_row(NEW.request_id) THEN
        RAISE EXCEPTION 'no request %', NEW.request_id;
    END IF;
    SELECT * INTO r FROM paydesk.requests q WHERE q.id OPERATOR(pg_catalog.=) NEW.request_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no request %', NEW.request_id;
    END IF;
    IF r.maker OPERATOR(pg_catalog.=) session_user::pg_catalog.text THEN
        RAISE EXCEPTION 'four eyes: request % was made by %, who cannot approve or reject it', r.id, r.maker;
    END IF;
    IF r.state OPERATOR(pg_catalog.<>) 'waiting' THEN
        RAISE EXCEPTION 'request % is %, not waiting for approval', r.id, r.state;
    END IF;
    RETURN NEW;
END $$;
