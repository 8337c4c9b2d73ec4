-- What the hostile review of issue 30's changes found (notes: review-team30).
--
-- 1. A signer wrote the "made by the team" label after all: `record_made` took any
--    trade number while a request row's was still blank, the signer could rewrite a
--    row's trade number, and an order's amount, currency or number could be changed
--    under a label kept. Now the first order recorded for a request row claims it (the
--    row's trade number, set once and never changed), and a label goes when an order's
--    numbers change so that no request row made it any more. Currencies are compared
--    without case everywhere.
--    What is left: the signer writes the whole cache (states, amounts, whether the
--    gateway's signature was checked), so a malicious signer can still claim a row for
--    an order it made around the team (one order per row, fixed once recorded).
-- 2. A maker could request a number the merchant had already used (an order in the
--    cache, a send in the journal) and so have an outside order labelled as the team's:
--    refused now, as the desks refuse it already.
-- 3. The admin's table-level DELETE on the rules let them LOCK the table and stall
--    every request: rules are removed through `paydesk.delete_rule` now.
-- 4. `lock_request_row` read a plain transaction id as a multixact's: members of
--    another multixact could be taken for the holder.
-- Minor: the owner is recognised by role OID, not by a quoted name.

-- The database's owner (the schema's), by OID.
CREATE FUNCTION paydesk.is_owner() RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) n.nspowner
                    WHERE n.nspname OPERATOR(pg_catalog.=) 'paydesk'
                      AND r.rolname OPERATOR(pg_catalog.=) session_user)
$$;
REVOKE ALL ON FUNCTION paydesk.is_owner() FROM PUBLIC;

-- 1. A row's trade number: set once (by its outcome or by the order recorded for it),
--    never changed nor cleared after. Blank to set is allowed while the request is
--    approved, executing or done (the order may be recorded before or after the
--    outcome is written); anything else only while it is executing, as before.
CREATE OR REPLACE FUNCTION paydesk.row_moves() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
BEGIN
    IF (NEW.request_id, NEW.row_no, NEW.mer_order_no, NEW.amount, NEW.form, NEW.beneficiary)
       IS DISTINCT FROM (OLD.request_id, OLD.row_no, OLD.mer_order_no, OLD.amount, OLD.form, OLD.beneficiary) THEN
        RAISE EXCEPTION 'what a request row asks never changes';
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
    IF OLD.trade_no IS NULL AND NEW.trade_no IS NOT NULL AND OLD.live
       AND (NEW.status, NEW.message) IS NOT DISTINCT FROM (OLD.status, OLD.message)
       AND EXISTS (SELECT 1 FROM paydesk.requests WHERE id = OLD.request_id
                      AND state = ANY (ARRAY['approved', 'executing', 'done'])) THEN
        RETURN NEW;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM paydesk.requests WHERE id = OLD.request_id AND state = 'executing') THEN
        RAISE EXCEPTION 'a row''s outcome is written only while its request is executing';
    END IF;
    NEW.updated_at := now();
    RETURN NEW;
END $$;

-- The request row that made an order: as before, currencies compared without case.
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
       AND q.state OPERATOR(pg_catalog.=) ANY (ARRAY['approved', 'executing', 'done'])
       AND (rr.trade_no IS NULL OR rr.trade_no OPERATOR(pg_catalog.=) made_by_request.trade_no)
       AND rr.amount OPERATOR(pg_catalog.=) made_by_request.amount
       AND pg_catalog.upper(q.currency) OPERATOR(pg_catalog.=) pg_catalog.upper(made_by_request.cur)
     LIMIT 1
$$;
REVOKE ALL ON FUNCTION paydesk.made_by_request(text, text, numeric, text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION paydesk.record_made(mer_no bigint, trade_no text, mer_order_no text, kind text,
    state bigint, method text, currency text, amount numeric, amount_e4 bigint, made_at bigint)
RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE
    owner boolean := paydesk.is_owner();
    team_mer bigint;
    made record;
    label_kind text;
    label_at bigint;
    now_ms bigint := (pg_catalog.date_part('epoch', pg_catalog.clock_timestamp()) OPERATOR(pg_catalog.*) 1000)::pg_catalog.int8;
    n integer;
    inserted boolean := false;
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
        inserted := n OPERATOR(pg_catalog.=) 1;
    END IF;
    IF NOT inserted AND label_kind IS NOT NULL THEN
        UPDATE paydesk.orders o
           SET kind = label_kind, made_at = label_at, created_at = label_at,
               method = CASE WHEN o.method OPERATOR(pg_catalog.=) '' THEN record_made.method ELSE o.method END
         WHERE o.mer_no OPERATOR(pg_catalog.=) record_made.mer_no
           AND o.trade_no OPERATOR(pg_catalog.=) record_made.trade_no
           AND o.mer_order_no OPERATOR(pg_catalog.=) record_made.mer_order_no
           AND (owner OR (o.source_amount OPERATOR(pg_catalog.=) record_made.amount
                          AND pg_catalog.upper(o.currency) OPERATOR(pg_catalog.=) pg_catalog.upper(record_made.currency)));
        GET DIAGNOSTICS n = ROW_COUNT;
        IF n OPERATOR(pg_catalog.<>) 1 THEN
            label_kind := NULL;
        END IF;
    END IF;
    -- The order labelled claims its request row: the row's trade number is this
    -- order's from now on, so no other order is labelled by it.
    IF NOT owner AND label_kind IS NOT NULL THEN
        UPDATE paydesk.request_rows rr SET trade_no = record_made.trade_no
         WHERE rr.mer_order_no OPERATOR(pg_catalog.=) record_made.mer_order_no
           AND rr.live AND rr.trade_no IS NULL;
    END IF;
    RETURN inserted OR label_kind IS NOT NULL;
END $$;
REVOKE ALL ON FUNCTION paydesk.record_made(bigint, text, text, text, bigint, text, text, numeric, bigint, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.record_made(bigint, text, text, text, bigint, text, text, numeric, bigint, bigint)
    TO paydesk_signer;

-- A label kept only while the order's numbers are those a request row made: changed
-- amounts, currency or order number (by the sync's rewrite or anyone) take it away
-- unless the request row still matches. The owner's writes (an import) are as given.
CREATE FUNCTION paydesk.orders_keep_label() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
BEGIN
    IF (NEW.made_at IS NULL AND NEW.kind OPERATOR(pg_catalog.=) '') OR paydesk.is_owner() THEN
        RETURN NEW;
    END IF;
    IF (NEW.amount_e4 IS DISTINCT FROM OLD.amount_e4 AND NEW.source_amount IS NOT DISTINCT FROM OLD.source_amount)
       OR ((NEW.source_amount, pg_catalog.upper(NEW.currency), NEW.mer_order_no, NEW.trade_no)
              IS DISTINCT FROM (OLD.source_amount, pg_catalog.upper(OLD.currency), OLD.mer_order_no, OLD.trade_no)
           AND NOT EXISTS (SELECT 1 FROM paydesk.made_by_request(NEW.mer_order_no, NEW.trade_no,
                                                                  NEW.source_amount, NEW.currency))) THEN
        NEW.kind := '';
        NEW.made_at := NULL;
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.orders_keep_label() FROM PUBLIC;
CREATE TRIGGER orders_keep_label BEFORE UPDATE ON paydesk.orders
    FOR EACH ROW EXECUTE FUNCTION paydesk.orders_keep_label();

-- Rows already labelled claim their request rows now.
UPDATE paydesk.request_rows rr SET trade_no = o.trade_no
  FROM paydesk.orders o
 WHERE rr.live AND rr.trade_no IS NULL AND o.made_at IS NOT NULL
   AND o.mer_order_no OPERATOR(pg_catalog.=) rr.mer_order_no
   AND o.mer_no OPERATOR(pg_catalog.=) (SELECT t.mer_no FROM paydesk.team t WHERE t.id OPERATOR(pg_catalog.=) 1)
   AND EXISTS (SELECT 1 FROM paydesk.requests q WHERE q.id OPERATOR(pg_catalog.=) rr.request_id
                  AND q.state OPERATOR(pg_catalog.=) ANY (ARRAY['approved', 'executing', 'done']));

-- 2. A number the merchant used already (an order in the cache, a send in the
--    journal) is not requested: the desks refuse it too, naming where it is.
CREATE OR REPLACE FUNCTION paydesk.request_row_new() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE r paydesk.requests; team_mer bigint;
BEGIN
    SELECT * INTO r FROM paydesk.requests WHERE id = NEW.request_id;
    IF r.maker IS DISTINCT FROM session_user::text OR r.created_at <> now() THEN
        RAISE EXCEPTION 'rows are added to a request only by its maker, in the transaction that makes it';
    END IF;
    SELECT t.mer_no INTO team_mer FROM paydesk.team t WHERE t.id = 1;
    IF EXISTS (SELECT 1 FROM paydesk.orders o WHERE o.mer_no = team_mer AND o.mer_order_no = NEW.mer_order_no)
       OR EXISTS (SELECT 1 FROM paydesk.journal j WHERE j.mer_no = team_mer AND j.mer_order_no = NEW.mer_order_no) THEN
        RAISE EXCEPTION 'merOrderNo %: the merchant used this number already (an order or a send): an order number is requested once', NEW.mer_order_no;
    END IF;
    NEW.status := 'waiting'; NEW.trade_no := NULL; NEW.message := NULL; NEW.updated_at := NULL;
    NEW.live := true;
    RETURN NEW;
END $$;

-- 3. Rules removed through a function: no table-level DELETE (enough to LOCK the
--    table every request reads) for the admin.
REVOKE DELETE ON paydesk.rules FROM paydesk_admin;
CREATE FUNCTION paydesk.delete_rule(rule bigint) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE n integer;
BEGIN
    IF NOT pg_catalog.pg_has_role(session_user, 'paydesk_admin', 'MEMBER') THEN
        RAISE EXCEPTION 'only an admin removes approval rules';
    END IF;
    DELETE FROM paydesk.rules r WHERE r.id OPERATOR(pg_catalog.=) delete_rule.rule;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n OPERATOR(pg_catalog.=) 1;
END $$;
REVOKE ALL ON FUNCTION paydesk.delete_rule(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.delete_rule(bigint) TO paydesk_admin;

-- 4. The holder of a request's row: the session holding the row's locker as a plain
--    transaction id when one does; a multixact's members only when none does (a plain
--    id read as a multixact's names unrelated transactions). And the row is taken once
--    more just before a holder is ended: a locker gone meanwhile ends nobody.
CREATE OR REPLACE FUNCTION paydesk.lock_request_row(request bigint) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE holder xid; lockers xid[]; h record; again record; started timestamptz := pg_catalog.clock_timestamp();
        next_look timestamptz := pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) interval '5 seconds';
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
        IF pg_catalog.clock_timestamp() OPERATOR(pg_catalog.>) (started OPERATOR(pg_catalog.+) interval '30 seconds') THEN
            RAISE EXCEPTION 'request %: another member''s session has held it for 30 s; nothing was changed, try again', lock_request_row.request
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
        SELECT a.pid, a.usename::pg_catalog.text AS who, a.state, a.state_change, a.xact_start INTO h
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
        IF h.state OPERATOR(pg_catalog.=) ANY (ARRAY['idle', 'idle in transaction', 'idle in transaction (aborted)']) THEN
            PERFORM pg_catalog.pg_sleep(0.25);
            PERFORM pg_catalog.pg_stat_clear_snapshot();
            SELECT a.state, a.state_change INTO again FROM pg_catalog.pg_stat_activity a
             WHERE a.pid OPERATOR(pg_catalog.=) h.pid;
            CONTINUE WHEN NOT FOUND OR again.state_change IS DISTINCT FROM h.state_change;
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
