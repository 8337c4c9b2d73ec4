-- Issue 30, what the second review left (notes: closing3, review-team30-r2), each
-- attacked by a member with plain SQL first (tests/team/team_review_r3.rs).
--
-- 1. No member LOCKs a table the team's work reads. PostgreSQL lets a role LOCK a
--    table in a mode above ROW EXCLUSIVE when it holds table-level UPDATE, DELETE or
--    TRUNCATE on it (column-level UPDATE does not count). The signer held table-level
--    UPDATE on the journal and the read model (and DELETE on sync_state), so a signer's
--    `LOCK TABLE paydesk.journal IN ACCESS EXCLUSIVE MODE` stalled every new request.
--    Now the signer holds UPDATE on exactly the columns the desk's code writes; the
--    sync's error is cleared by an UPDATE (no DELETE at all). Tables the desk only
--    appends to (order history, notifications, balance snapshots, card operations)
--    keep INSERT alone.

REVOKE UPDATE ON paydesk.journal, paydesk.order_history, paydesk.refunds,
    paydesk.chargebacks, paydesk.notifications, paydesk.balance_snapshots,
    paydesk.card_operations, paydesk.review_submissions, paydesk.sync_state
    FROM paydesk_signer;
REVOKE DELETE ON paydesk.sync_state FROM paydesk_signer;

-- crates/core/src/store/pg/journal.rs: a send's claim, outcome, look-ups and resolution.
GRANT UPDATE (status, trade_no, code, message, attempts, updated_at, next_check_at,
              claimed_by, claimed_until, sent_at, lookups, resolution, answered_ok)
    ON paydesk.journal TO paydesk_signer;
-- crates/core/src/store/pg/cache.rs: a refund seen again, a chargeback's new figures.
GRANT UPDATE (state, refund_amount, trade_fee, settle, receive_amount, fetched_at)
    ON paydesk.refunds TO paydesk_signer;
GRANT UPDATE (chargeback_amount, chargeback_currency, actual_chargeback_amount,
              actual_chargeback_currency, status, fetched_at)
    ON paydesk.chargebacks TO paydesk_signer;
-- A review submission's outcome.
GRANT UPDATE (outcome, at, journal_id) ON paydesk.review_submissions TO paydesk_signer;
-- The sync's progress, and its last error (cleared by writing NULL).
GRANT UPDATE (profile, window_end, pages_done, total_pages, complete, updated_at, error)
    ON paydesk.sync_state TO paydesk_signer;

-- 2. The team's own log rows (profile `team`, operations `team.*`) are the team's
--    functions' only, however a desk spells them. The check trimmed spaces only, so a
--    member's 'team' || E'\t' (or a newline, a no-break space, a zero-width space, a
--    look-alike letter) passed and read as the team's own row. A desk's profile and
--    operation are printable ASCII (profile names are letters, digits, - and _; the
--    operations are the desk's own words), so anything else is refused, naming the
--    field; what is left is compared without case or surrounding spaces.
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

-- 3. An order's `amount_e4` (its amount times 10^4, what the orders table sorts and
--    filters amounts by) is the database's to compute: a signer wrote any value, through
--    `record_made` or the sync's own insert, so an order of 900,000 could sort and
--    filter as one of 5. Now every write of an order derives it from the amount
--    (rounded half away from zero, as the desks compute it), and `record_made` refuses
--    a value that is not its amount's.
CREATE FUNCTION paydesk.orders_amount_e4() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, paydesk, pg_temp AS $$
BEGIN
    NEW.amount_e4 := GREATEST(LEAST(pg_catalog.round(NEW.source_amount OPERATOR(pg_catalog.*) 10000),
                                    9223372036854775807), -9223372036854775808)::pg_catalog.int8;
    RETURN NEW;
END $$;
-- Named to fire first (triggers fire in name order): the label's keeper and the
-- balance's clock see the amount as it is kept.
CREATE TRIGGER orders_amount_e4 BEFORE INSERT OR UPDATE ON paydesk.orders
    FOR EACH ROW EXECUTE FUNCTION paydesk.orders_amount_e4();
UPDATE paydesk.orders o SET amount_e4 = o.amount_e4
 WHERE o.amount_e4 IS DISTINCT FROM GREATEST(LEAST(pg_catalog.round(o.source_amount OPERATOR(pg_catalog.*) 10000),
                                                    9223372036854775807), -9223372036854775808)::pg_catalog.int8;

-- 4. A worker's claim on a request names its server process by number AND start time.
--    By number alone, a dead worker's number taken by another session (PostgreSQL
--    reuses process numbers) kept the request held, never paid, until that session
--    ended. Now the claim records the claiming session's `backend_start` too, and a
--    claim is alive only while a session with that number AND that start time runs.
--    The database writes both (a signer's own session, whatever the signer wrote), and
--    refuses to move a request another signer's live worker holds (taking it over,
--    giving it back, ending it): a second signer's worker takes over dead claims only.
ALTER TABLE paydesk.requests ADD COLUMN claimed_backend_start timestamptz;

-- This session's start, as pg_stat_activity says (NULL if the owner may not read it:
-- the claim is then alive by its number alone, as before).
CREATE FUNCTION paydesk.own_backend_start() RETURNS timestamptz
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT a.backend_start FROM pg_catalog.pg_stat_activity a
     WHERE a.pid OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid()
$$;
REVOKE ALL ON FUNCTION paydesk.own_backend_start() FROM PUBLIC;

-- Whether the worker that claimed with process `pid`, started at `started`, still runs.
-- A claim without a start time (made before this migration), or a session whose start
-- the owner may not read, is judged by the number alone.
CREATE FUNCTION paydesk.claim_alive(pid integer, started timestamptz) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT claim_alive.pid IS NOT NULL AND EXISTS (
        SELECT 1 FROM pg_catalog.pg_stat_activity a
         WHERE a.pid OPERATOR(pg_catalog.=) claim_alive.pid
           AND (claim_alive.started IS NULL OR a.backend_start IS NULL
                OR a.backend_start OPERATOR(pg_catalog.=) claim_alive.started))
$$;
REVOKE ALL ON FUNCTION paydesk.claim_alive(integer, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.claim_alive(integer, timestamptz) TO paydesk_signer;

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
        IF NOT mine AND paydesk.claim_alive(OLD.claimed_pid, OLD.claimed_backend_start) THEN
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

-- 5. An order the read model held before a request row asked its number is not that
--    row's: a signer whose sync cached an order paid around the team (in a transaction
--    still open while a maker requested the number, so neither saw the other) had it
--    labelled as made by the request once sent. Now the read model keeps when it first
--    saw each order (the database's clock, written by nobody else: no member holds a
--    right on the column), each request row when it was added, and `record_made` labels
--    no order first seen before its request row. Orders cached before this migration
--    count as first seen now (the read model kept no earlier time).
ALTER TABLE paydesk.orders ADD COLUMN first_seen_at timestamptz NOT NULL DEFAULT pg_catalog.now();
ALTER TABLE paydesk.orders ALTER COLUMN first_seen_at SET DEFAULT pg_catalog.clock_timestamp();

ALTER TABLE paydesk.request_rows ADD COLUMN added_at timestamptz;
ALTER TABLE paydesk.request_rows DISABLE TRIGGER row_moves;
UPDATE paydesk.request_rows rr SET added_at = q.created_at
  FROM paydesk.requests q WHERE q.id OPERATOR(pg_catalog.=) rr.request_id;
ALTER TABLE paydesk.request_rows ENABLE TRIGGER row_moves;
ALTER TABLE paydesk.request_rows ALTER COLUMN added_at SET DEFAULT pg_catalog.clock_timestamp();
ALTER TABLE paydesk.request_rows ALTER COLUMN added_at SET NOT NULL;

-- A new row: as 0014's, and added now (the database's clock, whatever the maker wrote).
CREATE OR REPLACE FUNCTION paydesk.request_row_new() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE r paydesk.requests; team_mer bigint;
BEGIN
    SELECT * INTO r FROM paydesk.requests q WHERE q.id OPERATOR(pg_catalog.=) NEW.request_id;
    IF r.maker IS DISTINCT FROM session_user::pg_catalog.text OR r.created_at OPERATOR(pg_catalog.<>) pg_catalog.now() THEN
        RAISE EXCEPTION 'rows are added to a request only by its maker, in the transaction that makes it';
    END IF;
    SELECT t.mer_no INTO team_mer FROM paydesk.team t WHERE t.id OPERATOR(pg_catalog.=) 1;
    IF EXISTS (SELECT 1 FROM paydesk.orders o WHERE o.mer_no OPERATOR(pg_catalog.=) team_mer
                  AND o.mer_order_no OPERATOR(pg_catalog.=) NEW.mer_order_no)
       OR EXISTS (SELECT 1 FROM paydesk.journal j WHERE j.mer_no OPERATOR(pg_catalog.=) team_mer
                     AND j.mer_order_no OPERATOR(pg_catalog.=) NEW.mer_order_no) THEN
        RAISE EXCEPTION 'merOrderNo %: the merchant used this number already (an order or a send): an order number is requested once', NEW.mer_order_no;
    END IF;
    NEW.status := 'waiting'; NEW.trade_no := NULL; NEW.message := NULL; NEW.updated_at := NULL;
    NEW.live := true;
    NEW.added_at := pg_catalog.clock_timestamp();
    RETURN NEW;
END $$;

-- record_made: as 0014's; `amount_e4` is the amount's or refused (3), and no order the
-- read model first saw before its request row was added is labelled by that row (5).
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
    e4 bigint;
    row_added timestamptz;
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
    e4 := GREATEST(LEAST(pg_catalog.round(record_made.amount OPERATOR(pg_catalog.*) 10000),
                         9223372036854775807), -9223372036854775808)::pg_catalog.int8;
    IF record_made.amount_e4 OPERATOR(pg_catalog.<>) e4 THEN
        RAISE EXCEPTION 'amount_e4: the amount % times 10^4 is %, not %', record_made.amount, e4, record_made.amount_e4;
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
        SELECT rr.added_at INTO row_added FROM paydesk.request_rows rr
         WHERE rr.mer_order_no OPERATOR(pg_catalog.=) record_made.mer_order_no AND rr.live;
        IF made.kind IS NOT NULL AND NOT EXISTS (
               SELECT 1 FROM paydesk.orders o
                WHERE o.mer_no OPERATOR(pg_catalog.=) record_made.mer_no
                  AND o.mer_order_no OPERATOR(pg_catalog.=) record_made.mer_order_no
                  AND o.trade_no OPERATOR(pg_catalog.<>) record_made.trade_no
                  AND o.made_at IS NOT NULL)
           AND NOT EXISTS (
               SELECT 1 FROM paydesk.orders o
                WHERE o.mer_no OPERATOR(pg_catalog.=) record_made.mer_no
                  AND o.trade_no OPERATOR(pg_catalog.=) record_made.trade_no
                  AND (row_added IS NULL OR o.first_seen_at OPERATOR(pg_catalog.<) row_added)) THEN
            label_kind := made.kind;
            label_at := LEAST(GREATEST(record_made.made_at, made.requested_at), now_ms);
        END IF;
    END IF;
    IF record_made.state IS NOT NULL THEN
        INSERT INTO paydesk.orders (mer_no, trade_no, mer_order_no, state, method, currency, source_amount,
                amount_e4, created_at, synced_at, signature_verified, kind, made_at)
        VALUES (record_made.mer_no, record_made.trade_no, record_made.mer_order_no, record_made.state,
                record_made.method, record_made.currency, record_made.amount, e4,
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

-- 6. A card payout's row names its holder (name, country, e-mail) to the approvers who
--    approve it and the signers who send it, and to its maker; every other member (a
--    viewer, another maker, an admin) read it in full from the row and the request's
--    summary. Now those read the card's mask only, through the team's functions, and
--    the columns themselves are refused them.
CREATE FUNCTION paydesk.sees_holders(request bigint) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT pg_catalog.pg_has_role(session_user, 'paydesk_approver', 'MEMBER')
        OR pg_catalog.pg_has_role(session_user, 'paydesk_signer', 'MEMBER')
        OR paydesk.is_owner()
        OR EXISTS (SELECT 1 FROM paydesk.requests q WHERE q.id OPERATOR(pg_catalog.=) sees_holders.request
                      AND q.maker OPERATOR(pg_catalog.=) session_user::pg_catalog.text)
$$;
REVOKE ALL ON FUNCTION paydesk.sees_holders(bigint) FROM PUBLIC;

-- A row's beneficiary as the session's user may read it: a card payout's holder left
-- out ("card 411111******1111") for whom `sees_holders` is false.
CREATE FUNCTION paydesk.shown_beneficiary(request bigint, row_no integer) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT CASE WHEN paydesk.sees_holders(rr.request_id) THEN rr.beneficiary
                ELSE pg_catalog.regexp_replace(rr.beneficiary, '^(card [^ ]+) of .*$', '\1') END
      FROM paydesk.request_rows rr
     WHERE rr.request_id OPERATOR(pg_catalog.=) shown_beneficiary.request
       AND rr.row_no OPERATOR(pg_catalog.=) shown_beneficiary.row_no
$$;
REVOKE ALL ON FUNCTION paydesk.shown_beneficiary(bigint, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.shown_beneficiary(bigint, integer) TO paydesk_viewer,
    paydesk_maker, paydesk_approver, paydesk_signer, paydesk_admin;

-- A request's summary likewise ("500 MXN to card 411111******1111").
CREATE FUNCTION paydesk.shown_summary(request bigint) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT CASE WHEN paydesk.sees_holders(q.id) THEN q.summary
                ELSE pg_catalog.regexp_replace(q.summary, '( to card [^ ]+) of .*$', '\1') END
      FROM paydesk.requests q
     WHERE q.id OPERATOR(pg_catalog.=) shown_summary.request
$$;
REVOKE ALL ON FUNCTION paydesk.shown_summary(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.shown_summary(bigint) TO paydesk_viewer,
    paydesk_maker, paydesk_approver, paydesk_signer, paydesk_admin;

REVOKE SELECT (beneficiary) ON paydesk.request_rows FROM paydesk_viewer, paydesk_maker, paydesk_admin;
REVOKE SELECT ON paydesk.requests FROM paydesk_viewer, paydesk_maker, paydesk_admin;
DO $$
DECLARE cols text;
BEGIN
    SELECT pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
      FROM pg_catalog.pg_attribute a
     WHERE a.attrelid = 'paydesk.requests'::regclass AND a.attnum > 0 AND NOT a.attisdropped
       AND a.attname <> 'summary';
    EXECUTE pg_catalog.format('GRANT SELECT (%s) ON paydesk.requests TO paydesk_viewer, paydesk_maker, paydesk_admin', cols);
END $$;

-- 7. A member removed keeps nothing through a session left open: a removed signer's
--    idle desk kept the claims its worker held alive (no other signer takes a live
--    claim over), and its role's rights were the only bound. Removing a member now ends
--    their open sessions too (the owner holds pg_signal_backend, see 0009; without it
--    the member is removed and the log says the sessions were left).
CREATE OR REPLACE FUNCTION paydesk.remove_member(member text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE s record; ended integer := 0; left_open integer := 0;
BEGIN
    IF NOT paydesk.keeps_members() THEN
        RAISE EXCEPTION 'only an admin removes members';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM paydesk.members m WHERE m.name OPERATOR(pg_catalog.=) member) THEN
        RAISE EXCEPTION 'no member %', member;
    END IF;
    PERFORM paydesk.check_member_role(member);
    PERFORM paydesk.set_member_group_roles(member, ARRAY[]::text[]);
    EXECUTE pg_catalog.format('ALTER ROLE %I WITH NOLOGIN', member);
    DELETE FROM paydesk.members m WHERE m.name OPERATOR(pg_catalog.=) member;
    FOR s IN SELECT a.pid FROM pg_catalog.pg_stat_activity a
              WHERE a.usename OPERATOR(pg_catalog.=) remove_member.member
                AND a.pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid() LOOP
        BEGIN
            IF pg_catalog.pg_terminate_backend(s.pid, 2000) THEN
                ended := ended OPERATOR(pg_catalog.+) 1;
            END IF;
        EXCEPTION WHEN others THEN
            left_open := left_open OPERATOR(pg_catalog.+) 1;
        END;
    END LOOP;
    PERFORM paydesk.audit('team.member.remove', 'member=' OPERATOR(pg_catalog.||) member,
        CASE WHEN ended OPERATOR(pg_catalog.=) 0 AND left_open OPERATOR(pg_catalog.=) 0 THEN 'removed'
             ELSE pg_catalog.format('removed; %s open session%s ended%s', ended,
                      CASE WHEN ended OPERATOR(pg_catalog.=) 1 THEN '' ELSE 's' END,
                      CASE WHEN left_open OPERATOR(pg_catalog.>) 0
                           THEN pg_catalog.format(', %s left open (the owner may not end them)', left_open)
                           ELSE '' END) END);
END $$;

-- Every SECURITY DEFINER function of the team, the new ones included: pg_temp last, and
-- a bound on lock waits where none is set (advisory_xact_lock keeps its 5 s).
DO $$
DECLARE f record;
BEGIN
    FOR f IN SELECT p.oid::regprocedure AS fn,
                    EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proconfig) c WHERE c LIKE 'lock\_timeout=%') AS bounded
               FROM pg_catalog.pg_proc p
              WHERE p.pronamespace = 'paydesk'::regnamespace AND p.prosecdef LOOP
        EXECUTE pg_catalog.format('ALTER FUNCTION %s SET search_path = pg_catalog, paydesk, pg_temp', f.fn);
        IF NOT f.bounded THEN
            EXECUTE pg_catalog.format('ALTER FUNCTION %s SET lock_timeout = %L', f.fn, '10s');
        END IF;
    END LOOP;
END $$;
