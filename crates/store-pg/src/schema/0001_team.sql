-- The team schema: one merchant's team on one database. Roles, grants, row-level
-- security and triggers hold the team's rules, so a desk (or plain SQL) cannot go
-- around them: a maker requests, approvers other than the maker approve, only a signer
-- executes what enough approvers approved, and every step is in the audit log with
-- the database user who took it. Applied by `paydesk team init` as the database's
-- owner (a role with CREATEROLE, or a superuser), who owns every object here.

-- The team's roles: group roles without login; members are login roles granted one.
DO $$
DECLARE r text;
BEGIN
    FOREACH r IN ARRAY ARRAY['paydesk_viewer', 'paydesk_support', 'paydesk_maker',
                             'paydesk_approver', 'paydesk_signer', 'paydesk_admin'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
            EXECUTE format('CREATE ROLE %I NOLOGIN', r);
        END IF;
    END LOOP;
END $$;

REVOKE ALL ON SCHEMA paydesk FROM PUBLIC;
GRANT USAGE ON SCHEMA paydesk TO paydesk_viewer, paydesk_support, paydesk_maker,
    paydesk_approver, paydesk_signer, paydesk_admin;
GRANT SELECT ON paydesk.schema_migrations TO paydesk_viewer, paydesk_support,
    paydesk_maker, paydesk_approver, paydesk_signer, paydesk_admin;

-- The merchant this database is the team of, and the team's settings.
CREATE TABLE paydesk.team (
    id                 integer PRIMARY KEY CHECK (id = 1),
    mer_no             bigint NOT NULL CHECK (mer_no > 0),
    idle_lock_minutes  integer NOT NULL DEFAULT 15 CHECK (idle_lock_minutes BETWEEN 1 AND 480),
    -- Mixed into the numbers of bulk rows that come without one, so the same row of a
    -- file sent again gets the same number (and the database refuses it twice).
    number_salt        text NOT NULL DEFAULT encode(sha256(convert_to(random()::text || clock_timestamp()::text, 'UTF8')), 'hex'),
    created_at         timestamptz NOT NULL DEFAULT now()
);
GRANT SELECT ON paydesk.team TO paydesk_viewer, paydesk_support, paydesk_maker,
    paydesk_approver, paydesk_signer, paydesk_admin;
GRANT UPDATE (idle_lock_minutes) ON paydesk.team TO paydesk_admin;

-- The team's roles a login role holds (through membership: the database's own truth).
CREATE FUNCTION paydesk.roles_of(member name) RETURNS text[]
LANGUAGE sql STABLE AS $$
    SELECT coalesce(array_agg(substr(g.rolname, 9) ORDER BY g.rolname), '{}')
    FROM pg_roles g
    WHERE g.rolname IN ('paydesk_viewer', 'paydesk_support', 'paydesk_maker',
                        'paydesk_approver', 'paydesk_signer', 'paydesk_admin')
      AND pg_has_role(member, g.oid, 'MEMBER')
$$;

-- The team's members: who added them and when (the roles come from roles_of).
CREATE TABLE paydesk.members (
    name      text PRIMARY KEY,
    role      text NOT NULL CHECK (role IN ('viewer', 'support', 'maker', 'approver', 'signer', 'admin')),
    added_by  text NOT NULL DEFAULT session_user,
    added_at  timestamptz NOT NULL DEFAULT now()
);
GRANT SELECT ON paydesk.members TO paydesk_viewer, paydesk_support, paydesk_maker,
    paydesk_approver, paydesk_signer, paydesk_admin;

-- The audit log: append-only (no role may update or delete a row), chained by a hash
-- the database computes under a lock, each row with the database user who wrote it.
CREATE TABLE paydesk.audit_log (
    id           bigint PRIMARY KEY,
    at           bigint NOT NULL,
    profile      text NOT NULL,
    operator     text NOT NULL,
    operation    text NOT NULL,
    identifiers  text NOT NULL,
    result       text NOT NULL,
    latency_ms   bigint NOT NULL DEFAULT 0,
    db_user      text NOT NULL,
    prev_hash    text NOT NULL,
    hash         text NOT NULL
);
CREATE FUNCTION paydesk.audit_seal() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk AS $$
DECLARE last_id bigint; last_hash text;
BEGIN
    -- One writer at a time: the id and the previous hash are taken under the lock, so
    -- the chain follows the ids.
    PERFORM pg_advisory_xact_lock(7261104901);
    -- Numbered after the last row, not from a sequence: a transaction that rolls back
    -- leaves no gap (a missing id is a removed row), and one whose snapshot is older
    -- than the last row (repeatable read) fails on the key instead of forking the chain.
    SELECT l.id, l.hash INTO last_id, last_hash FROM paydesk.audit_log l ORDER BY l.id DESC LIMIT 1;
    NEW.id := coalesce(last_id, 0) + 1;
    NEW.db_user := session_user;
    NEW.prev_hash := coalesce(last_hash, '');
    NEW.hash := encode(sha256(convert_to(concat_ws(E'\x1f', NEW.prev_hash, NEW.id::text,
        NEW.at::text, NEW.profile, NEW.operator, NEW.operation, NEW.identifiers, NEW.result,
        NEW.latency_ms::text, NEW.db_user), 'UTF8')), 'hex');
    RETURN NEW;
END $$;
CREATE TRIGGER audit_seal BEFORE INSERT ON paydesk.audit_log
    FOR EACH ROW EXECUTE FUNCTION paydesk.audit_seal();
CREATE FUNCTION paydesk.audit_frozen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only: rows are never changed or removed';
END $$;
CREATE TRIGGER audit_frozen BEFORE UPDATE OR DELETE ON paydesk.audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION paydesk.audit_frozen();
ALTER TABLE paydesk.audit_log ENABLE ROW LEVEL SECURITY;
CREATE POLICY audit_read ON paydesk.audit_log FOR SELECT
    TO paydesk_viewer, paydesk_approver, paydesk_signer, paydesk_admin USING (true);
CREATE POLICY audit_write ON paydesk.audit_log FOR INSERT
    TO paydesk_viewer, paydesk_support, paydesk_maker, paydesk_approver, paydesk_signer, paydesk_admin
    WITH CHECK (true);
GRANT SELECT ON paydesk.audit_log TO paydesk_viewer, paydesk_approver, paydesk_signer, paydesk_admin;
GRANT INSERT (at, profile, operator, operation, identifiers, result, latency_ms)
    ON paydesk.audit_log TO paydesk_viewer, paydesk_support, paydesk_maker,
    paydesk_approver, paydesk_signer, paydesk_admin;

-- How a desk appends: the row comes back as sealed, also to a member who may not read
-- the log (INSERT ... RETURNING would need SELECT on it).
CREATE FUNCTION paydesk.audit_append(at bigint, profile text, operator text, operation text,
    identifiers text, result text, latency_ms bigint) RETURNS paydesk.audit_log
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, paydesk AS $$
    INSERT INTO paydesk.audit_log (at, profile, operator, operation, identifiers, result, latency_ms)
    VALUES (at, profile, operator, operation, identifiers, result, latency_ms)
    RETURNING *
$$;
REVOKE ALL ON FUNCTION paydesk.audit_append(bigint, text, text, text, text, text, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.audit_append(bigint, text, text, text, text, text, bigint)
    TO paydesk_viewer, paydesk_support, paydesk_maker, paydesk_approver, paydesk_signer,
    paydesk_admin;

-- Written by the team's own triggers: a step of a request, with who took it.
CREATE FUNCTION paydesk.audit(operation text, identifiers text, result text) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, paydesk AS $$
    INSERT INTO paydesk.audit_log (at, profile, operator, operation, identifiers, result, latency_ms)
    VALUES ((extract(epoch FROM clock_timestamp()) * 1000)::bigint, 'team', session_user,
            operation, identifiers, result, 0)
$$;
REVOKE ALL ON FUNCTION paydesk.audit(text, text, text) FROM PUBLIC;

-- Approval rules: a request of an operation and currency whose total is above an
-- amount needs that many distinct approvers other than its maker (the most any rule
-- that applies asks). '*' is any operation or currency. No rule: no approval needed.
CREATE TABLE paydesk.rules (
    id          bigserial PRIMARY KEY,
    operation   text NOT NULL CHECK (operation IN ('payout', 'payin', '*')),
    currency    text NOT NULL CHECK (currency ~ '^([A-Z]{3}|\*)$'),
    above       numeric(24, 6) NOT NULL CHECK (above >= 0),
    approvals   integer NOT NULL CHECK (approvals BETWEEN 1 AND 5),
    created_by  text NOT NULL DEFAULT session_user,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (operation, currency, above)
);
GRANT SELECT ON paydesk.rules TO paydesk_viewer, paydesk_support, paydesk_maker,
    paydesk_approver, paydesk_signer, paydesk_admin;
GRANT INSERT (operation, currency, above, approvals), UPDATE (approvals), DELETE
    ON paydesk.rules TO paydesk_admin;
GRANT USAGE ON SEQUENCE paydesk.rules_id_seq TO paydesk_admin;

CREATE FUNCTION paydesk.rules_audit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk AS $$
DECLARE r paydesk.rules;
BEGIN
    IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
    IF TG_OP = 'INSERT' THEN r.created_by := session_user; NEW.created_by := session_user; END IF;
    PERFORM paydesk.audit('team.rule.' || lower(TG_OP),
        format('operation=%s currency=%s above=%s', r.operation, r.currency, r.above),
        format('approvals=%s', r.approvals));
    IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER rules_audit BEFORE INSERT OR UPDATE OR DELETE ON paydesk.rules
    FOR EACH ROW EXECUTE FUNCTION paydesk.rules_audit();

CREATE FUNCTION paydesk.approvals_needed(op text, cur text, total numeric) RETURNS integer
LANGUAGE sql STABLE AS $$
    SELECT coalesce(max(approvals), 0) FROM paydesk.rules
    WHERE operation IN (op, '*') AND currency IN (cur, '*') AND total > above
$$;

-- A request a maker made: one order, or a bulk file's rows as one batch. Its rows
-- carry their merchant order numbers, fixed when the request was made.
CREATE TABLE paydesk.requests (
    id                bigserial PRIMARY KEY,
    operation         text NOT NULL CHECK (operation IN ('payout', 'payin')),
    currency          text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    total             numeric(24, 6) NOT NULL CHECK (total > 0),
    row_count         integer NOT NULL CHECK (row_count BETWEEN 1 AND 100000),
    summary           text NOT NULL CHECK (length(summary) BETWEEN 1 AND 500),
    source            text,
    maker             text NOT NULL DEFAULT session_user,
    approvals_needed  integer NOT NULL DEFAULT 0,
    state             text NOT NULL DEFAULT 'waiting'
                      CHECK (state IN ('waiting', 'approved', 'rejected', 'executing', 'done')),
    created_at        timestamptz NOT NULL DEFAULT now(),
    decided_at        timestamptz,
    claimed_by        text,
    claimed_pid       integer,
    claimed_at        timestamptz,
    finished_at       timestamptz,
    outcome           text
);
CREATE INDEX requests_state ON paydesk.requests (state, id);

CREATE TABLE paydesk.request_rows (
    request_id    bigint NOT NULL REFERENCES paydesk.requests ON DELETE RESTRICT,
    row_no        integer NOT NULL CHECK (row_no >= 1),
    mer_order_no  text NOT NULL UNIQUE CHECK (mer_order_no ~ '^[A-Za-z0-9_-]{1,64}$'),
    amount        numeric(24, 6) NOT NULL CHECK (amount > 0),
    -- The form the signer fills the request from: never a card number (the team's
    -- requests carry bank accounts; card payouts stay on a single desk for now).
    form          jsonb NOT NULL CHECK (coalesce(form ->> 'cardNo', '') = ''),
    beneficiary   text NOT NULL,
    status        text NOT NULL DEFAULT 'waiting'
                  CHECK (status IN ('waiting', 'accepted', 'rejected', 'unknown', 'failed')),
    trade_no      text,
    message       text,
    updated_at    timestamptz,
    PRIMARY KEY (request_id, row_no)
);

-- Approvals and rejections: one per member and request.
CREATE TABLE paydesk.decisions (
    request_id  bigint NOT NULL REFERENCES paydesk.requests ON DELETE RESTRICT,
    member      text NOT NULL DEFAULT session_user,
    decision    text NOT NULL CHECK (decision IN ('approve', 'reject')),
    reason      text CHECK (decision = 'approve' OR length(btrim(coalesce(reason, ''))) >= 3),
    decided_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (request_id, member)
);

-- A new request: made by the session's user, waiting, with the approvals the rules
-- ask (approved at once when none apply). Nothing a maker writes can change that.
CREATE FUNCTION paydesk.request_new() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk AS $$
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
CREATE TRIGGER request_new BEFORE INSERT ON paydesk.requests
    FOR EACH ROW EXECUTE FUNCTION paydesk.request_new();

CREATE FUNCTION paydesk.request_made() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk AS $$
BEGIN
    PERFORM paydesk.audit('team.request', format('request=%s operation=%s rows=%s total=%s %s',
        NEW.id, NEW.operation, NEW.row_count, NEW.total, NEW.currency),
        format('%s (approvals needed: %s)', NEW.state, NEW.approvals_needed));
    PERFORM pg_notify('paydesk_requests', NEW.id::text);
    RETURN NULL;
END $$;
CREATE TRIGGER request_made AFTER INSERT ON paydesk.requests
    FOR EACH ROW EXECUTE FUNCTION paydesk.request_made();

-- A request's rows are written by its maker in the transaction that made it, and
-- only then; at commit their count and total must be the request's.
CREATE FUNCTION paydesk.request_row_new() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk AS $$
DECLARE r paydesk.requests;
BEGIN
    SELECT * INTO r FROM paydesk.requests WHERE id = NEW.request_id;
    IF r.maker IS DISTINCT FROM session_user::text OR r.created_at <> now() THEN
        RAISE EXCEPTION 'rows are added to a request only by its maker, in the transaction that makes it';
    END IF;
    NEW.status := 'waiting'; NEW.trade_no := NULL; NEW.message := NULL; NEW.updated_at := NULL;
    RETURN NEW;
END $$;
CREATE TRIGGER request_row_new BEFORE INSERT ON paydesk.request_rows
    FOR EACH ROW EXECUTE FUNCTION paydesk.request_row_new();

CREATE FUNCTION paydesk.request_rows_match() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk AS $$
DECLARE n integer; t numeric; r paydesk.requests;
BEGIN
    SELECT * INTO r FROM paydesk.requests WHERE id = NEW.id;
    SELECT count(*), coalesce(sum(amount), 0) INTO n, t FROM paydesk.request_rows WHERE request_id = NEW.id;
    IF n <> r.row_count OR t <> r.total THEN
        RAISE EXCEPTION 'request %: its rows (% rows, total %) are not what it says (% rows, total %)',
            NEW.id, n, t, r.row_count, r.total;
    END IF;
    RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER request_rows_match AFTER INSERT ON paydesk.requests
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION paydesk.request_rows_match();

-- How a request's state may move, whoever writes it: approved only with enough
-- distinct approvers other than its maker, rejected only with a rejection, executed
-- only once approved, done only from executing. What the maker asked never changes.
CREATE FUNCTION paydesk.request_moves() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk AS $$
DECLARE approvers integer;
BEGIN
    IF (NEW.operation, NEW.currency, NEW.total, NEW.row_count, NEW.summary, NEW.source,
        NEW.maker, NEW.approvals_needed, NEW.created_at)
       IS DISTINCT FROM
       (OLD.operation, OLD.currency, OLD.total, OLD.row_count, OLD.summary, OLD.source,
        OLD.maker, OLD.approvals_needed, OLD.created_at) THEN
        RAISE EXCEPTION 'request %: what was requested never changes', OLD.id;
    END IF;
    IF NEW.state = OLD.state AND NEW.state <> 'executing' THEN
        IF (NEW.claimed_by, NEW.claimed_pid, NEW.finished_at, NEW.outcome, NEW.decided_at)
           IS DISTINCT FROM (OLD.claimed_by, OLD.claimed_pid, OLD.finished_at, OLD.outcome, OLD.decided_at) THEN
            RAISE EXCEPTION 'request %: a % request does not change', OLD.id, OLD.state;
        END IF;
        RETURN NEW;
    END IF;
    SELECT count(*) INTO approvers FROM paydesk.decisions
     WHERE request_id = OLD.id AND decision = 'approve' AND member <> OLD.maker;
    IF OLD.state = 'waiting' AND NEW.state = 'approved' THEN
        IF approvers < OLD.approvals_needed THEN
            RAISE EXCEPTION 'request %: four eyes: % of % approvals', OLD.id, approvers, OLD.approvals_needed;
        END IF;
        NEW.decided_at := now();
    ELSIF OLD.state = 'waiting' AND NEW.state = 'rejected' THEN
        IF NOT EXISTS (SELECT 1 FROM paydesk.decisions WHERE request_id = OLD.id AND decision = 'reject') THEN
            RAISE EXCEPTION 'request %: rejected only by a rejection with its reason', OLD.id;
        END IF;
        NEW.decided_at := now();
    ELSIF OLD.state IN ('approved', 'executing') AND NEW.state = 'executing' THEN
        IF approvers < OLD.approvals_needed THEN
            RAISE EXCEPTION 'request %: four eyes: % of % approvals', OLD.id, approvers, OLD.approvals_needed;
        END IF;
        IF NEW.claimed_pid IS NOT NULL THEN
            NEW.claimed_by := session_user;
            NEW.claimed_at := now();
        END IF;
    ELSIF OLD.state = 'executing' AND NEW.state = 'done' THEN
        NEW.finished_at := now();
    ELSE
        RAISE EXCEPTION 'request %: cannot go from % to %', OLD.id, OLD.state, NEW.state;
    END IF;
    IF NEW.state <> OLD.state THEN
        PERFORM paydesk.audit('team.request.' || NEW.state, format('request=%s', OLD.id),
            coalesce(NEW.outcome, NEW.state));
        PERFORM pg_notify('paydesk_requests', OLD.id::text);
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER request_moves BEFORE UPDATE ON paydesk.requests
    FOR EACH ROW EXECUTE FUNCTION paydesk.request_moves();

-- A decision: by an approver who is not the request's maker, on a waiting request;
-- the request moves when enough approvals are in, or at the first rejection.
CREATE FUNCTION paydesk.decision_new() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk AS $$
DECLARE r paydesk.requests;
BEGIN
    NEW.member := session_user;
    NEW.decided_at := now();
    IF NOT pg_has_role(session_user, 'paydesk_approver', 'MEMBER') THEN
        RAISE EXCEPTION 'only an approver approves or rejects requests';
    END IF;
    SELECT * INTO r FROM paydesk.requests WHERE id = NEW.request_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no request %', NEW.request_id;
    END IF;
    IF r.maker = session_user::text THEN
        RAISE EXCEPTION 'four eyes: request % was made by %, who cannot approve or reject it', r.id, r.maker;
    END IF;
    IF r.state <> 'waiting' THEN
        RAISE EXCEPTION 'request % is %, not waiting for approval', r.id, r.state;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER decision_new BEFORE INSERT ON paydesk.decisions
    FOR EACH ROW EXECUTE FUNCTION paydesk.decision_new();

CREATE FUNCTION paydesk.decision_made() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk AS $$
DECLARE r paydesk.requests; approvers integer;
BEGIN
    SELECT * INTO r FROM paydesk.requests WHERE id = NEW.request_id;
    PERFORM paydesk.audit('team.' || NEW.decision, format('request=%s', NEW.request_id),
        coalesce(NEW.reason, 'approved'));
    IF NEW.decision = 'reject' THEN
        UPDATE paydesk.requests SET state = 'rejected', outcome = 'rejected by ' || NEW.member || ': ' || NEW.reason
         WHERE id = NEW.request_id;
    ELSE
        SELECT count(*) INTO approvers FROM paydesk.decisions
         WHERE request_id = r.id AND decision = 'approve' AND member <> r.maker;
        IF approvers >= r.approvals_needed THEN
            UPDATE paydesk.requests SET state = 'approved' WHERE id = r.id;
        ELSE
            PERFORM pg_notify('paydesk_requests', r.id::text);
        END IF;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER decision_made AFTER INSERT ON paydesk.decisions
    FOR EACH ROW EXECUTE FUNCTION paydesk.decision_made();

CREATE FUNCTION paydesk.frozen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% rows are never changed or removed', TG_TABLE_NAME;
END $$;
CREATE TRIGGER decisions_frozen BEFORE UPDATE OR DELETE ON paydesk.decisions
    FOR EACH STATEMENT EXECUTE FUNCTION paydesk.frozen();
CREATE TRIGGER requests_kept BEFORE DELETE ON paydesk.requests
    FOR EACH STATEMENT EXECUTE FUNCTION paydesk.frozen();

-- A row's outcome, as the signer's journal found it. Its request stays as made.
CREATE FUNCTION paydesk.row_moves() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk AS $$
BEGIN
    IF (NEW.request_id, NEW.row_no, NEW.mer_order_no, NEW.amount, NEW.form, NEW.beneficiary)
       IS DISTINCT FROM (OLD.request_id, OLD.row_no, OLD.mer_order_no, OLD.amount, OLD.form, OLD.beneficiary) THEN
        RAISE EXCEPTION 'what a request row asks never changes';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM paydesk.requests WHERE id = OLD.request_id AND state = 'executing') THEN
        RAISE EXCEPTION 'a row''s outcome is written only while its request is executing';
    END IF;
    NEW.updated_at := now();
    RETURN NEW;
END $$;
CREATE TRIGGER row_moves BEFORE UPDATE ON paydesk.request_rows
    FOR EACH ROW EXECUTE FUNCTION paydesk.row_moves();
CREATE TRIGGER rows_kept BEFORE DELETE ON paydesk.request_rows
    FOR EACH STATEMENT EXECUTE FUNCTION paydesk.frozen();

ALTER TABLE paydesk.requests ENABLE ROW LEVEL SECURITY;
CREATE POLICY requests_read ON paydesk.requests FOR SELECT
    TO paydesk_viewer, paydesk_maker, paydesk_approver, paydesk_signer, paydesk_admin USING (true);
CREATE POLICY requests_make ON paydesk.requests FOR INSERT TO paydesk_maker
    WITH CHECK (maker = session_user);
CREATE POLICY requests_execute ON paydesk.requests FOR UPDATE TO paydesk_signer
    USING (state IN ('approved', 'executing')) WITH CHECK (state IN ('executing', 'done'));
GRANT SELECT ON paydesk.requests TO paydesk_viewer, paydesk_maker, paydesk_approver,
    paydesk_signer, paydesk_admin;
GRANT INSERT (operation, currency, total, row_count, summary, source) ON paydesk.requests TO paydesk_maker;
GRANT USAGE ON SEQUENCE paydesk.requests_id_seq TO paydesk_maker;
GRANT UPDATE (state, claimed_by, claimed_pid, claimed_at, outcome) ON paydesk.requests TO paydesk_signer;

ALTER TABLE paydesk.request_rows ENABLE ROW LEVEL SECURITY;
CREATE POLICY rows_read ON paydesk.request_rows FOR SELECT
    TO paydesk_viewer, paydesk_maker, paydesk_approver, paydesk_signer, paydesk_admin USING (true);
CREATE POLICY rows_make ON paydesk.request_rows FOR INSERT TO paydesk_maker WITH CHECK (true);
CREATE POLICY rows_execute ON paydesk.request_rows FOR UPDATE TO paydesk_signer
    USING (true) WITH CHECK (true);
GRANT SELECT ON paydesk.request_rows TO paydesk_viewer, paydesk_maker, paydesk_approver,
    paydesk_signer, paydesk_admin;
GRANT INSERT (request_id, row_no, mer_order_no, amount, form, beneficiary)
    ON paydesk.request_rows TO paydesk_maker;
GRANT UPDATE (status, trade_no, message) ON paydesk.request_rows TO paydesk_signer;

ALTER TABLE paydesk.decisions ENABLE ROW LEVEL SECURITY;
CREATE POLICY decisions_read ON paydesk.decisions FOR SELECT
    TO paydesk_viewer, paydesk_maker, paydesk_approver, paydesk_signer, paydesk_admin USING (true);
CREATE POLICY decisions_make ON paydesk.decisions FOR INSERT TO paydesk_approver
    WITH CHECK (member = session_user AND NOT EXISTS (
        SELECT 1 FROM paydesk.requests r WHERE r.id = request_id AND r.maker = session_user));
GRANT SELECT ON paydesk.decisions TO paydesk_viewer, paydesk_maker, paydesk_approver,
    paydesk_signer, paydesk_admin;
GRANT INSERT (request_id, decision, reason) ON paydesk.decisions TO paydesk_approver;

-- The shared journal: what the team's signers sent or are about to send, one entry
-- per merchant order number and operation. Only signers write it.
CREATE TABLE paydesk.journal (
    id             bigserial PRIMARY KEY,
    mer_no         bigint NOT NULL,
    profile        text NOT NULL,
    operation      text NOT NULL,
    mer_order_no   text NOT NULL,
    request        text NOT NULL,
    summary        text NOT NULL,
    status         text NOT NULL CHECK (status IN ('pending', 'sending', 'accepted', 'rejected', 'unknown')),
    trade_no       text,
    code           text,
    message        text,
    attempts       integer NOT NULL DEFAULT 0,
    created_at     bigint NOT NULL,
    updated_at     bigint NOT NULL,
    next_check_at  bigint,
    fingerprint    text NOT NULL DEFAULT '',
    claimed_by     text,
    claimed_until  bigint,
    sent_at        bigint,
    lookups        integer NOT NULL DEFAULT 0,
    resolution     text,
    answered_ok    boolean NOT NULL DEFAULT false,
    written_by     text NOT NULL DEFAULT session_user,
    UNIQUE (mer_no, operation, mer_order_no)
);
CREATE INDEX journal_status ON paydesk.journal (mer_no, status);
CREATE INDEX journal_fingerprint ON paydesk.journal (mer_no, fingerprint, created_at);
CREATE INDEX journal_mer_order_no ON paydesk.journal (mer_no, mer_order_no);
CREATE INDEX journal_trade_no ON paydesk.journal (mer_no, trade_no);
GRANT SELECT ON paydesk.journal TO paydesk_viewer, paydesk_support, paydesk_maker,
    paydesk_approver, paydesk_signer, paydesk_admin;
GRANT INSERT, UPDATE ON paydesk.journal TO paydesk_signer;
GRANT USAGE ON SEQUENCE paydesk.journal_id_seq TO paydesk_signer;

-- Members are added by an admin through this function only: a login role with the
-- password's SCRAM verifier (the password itself never reaches the server), granted
-- one of the team's roles.
CREATE FUNCTION paydesk.add_member(member text, team_role text, verifier text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk AS $$
BEGIN
    IF NOT pg_has_role(session_user, 'paydesk_admin', 'MEMBER') THEN
        RAISE EXCEPTION 'only an admin adds members';
    END IF;
    IF member !~ '^[a-z][a-z0-9_]{0,49}$' OR member LIKE 'paydesk\_%' OR member LIKE 'pg\_%' THEN
        RAISE EXCEPTION 'member name %: 1 to 50 lowercase letters, digits and underscores, starting with a letter', member;
    END IF;
    IF team_role NOT IN ('viewer', 'support', 'maker', 'approver', 'signer', 'admin') THEN
        RAISE EXCEPTION 'role %: one of viewer, support, maker, approver, signer, admin', team_role;
    END IF;
    IF verifier !~ '^SCRAM-SHA-256\$' THEN
        RAISE EXCEPTION 'the password is given as its SCRAM-SHA-256 verifier';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = member) THEN
        EXECUTE format('ALTER ROLE %I WITH LOGIN PASSWORD %L', member, verifier);
    ELSE
        EXECUTE format('CREATE ROLE %I WITH LOGIN PASSWORD %L', member, verifier);
    END IF;
    EXECUTE format('GRANT %I TO %I', 'paydesk_' || team_role, member);
    INSERT INTO paydesk.members (name, role) VALUES (member, team_role)
        ON CONFLICT (name) DO UPDATE SET role = excluded.role, added_by = session_user, added_at = now();
    PERFORM paydesk.audit('team.member.add', 'member=' || member, 'role=' || team_role);
END $$;
REVOKE ALL ON FUNCTION paydesk.add_member(text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.add_member(text, text, text) TO paydesk_admin;

CREATE FUNCTION paydesk.remove_member(member text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk AS $$
DECLARE r text;
BEGIN
    IF NOT pg_has_role(session_user, 'paydesk_admin', 'MEMBER') THEN
        RAISE EXCEPTION 'only an admin removes members';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM paydesk.members WHERE name = member) THEN
        RAISE EXCEPTION 'no member %', member;
    END IF;
    FOREACH r IN ARRAY ARRAY['paydesk_viewer', 'paydesk_support', 'paydesk_maker',
                             'paydesk_approver', 'paydesk_signer', 'paydesk_admin'] LOOP
        EXECUTE format('REVOKE %I FROM %I', r, member);
    END LOOP;
    EXECUTE format('ALTER ROLE %I WITH NOLOGIN', member);
    DELETE FROM paydesk.members WHERE name = member;
    PERFORM paydesk.audit('team.member.remove', 'member=' || member, 'removed');
END $$;
REVOKE ALL ON FUNCTION paydesk.remove_member(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.remove_member(text) TO paydesk_admin;
