-- Issue 30: every member is a possible attacker with psql. No member runs code with
-- another's rights, membership touches only the team's members, the audit log says who
-- wrote each row, and no member can stall the others. Applied by `team init` as the
-- database's owner, a role with CREATEROLE that is not a superuser (init refuses one).

-- No member makes temporary objects: PostgreSQL looks in a session's temporary schema
-- first for relations and types, so a member's `pg_temp.text` could otherwise reach a
-- SECURITY DEFINER function whose search path does not put pg_temp last.
DO $$
BEGIN
    EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
END $$;

-- The audit chain's head: the row its writers lock, one at a time. Owned by the owner
-- and granted to no member, so only the team's own functions take its lock (an
-- advisory lock any session could take and hold).
CREATE TABLE paydesk.audit_head (id integer PRIMARY KEY CHECK (id = 1));
INSERT INTO paydesk.audit_head VALUES (1);
REVOKE ALL ON paydesk.audit_head FROM PUBLIC;

-- Each row's operator is the database user who wrote it, whatever the writer says.
CREATE OR REPLACE FUNCTION paydesk.audit_seal() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE last_id bigint; last_hash text;
BEGIN
    -- One writer at a time: the id and the previous hash are taken under the lock, so
    -- the chain follows the ids.
    PERFORM 1 FROM paydesk.audit_head h WHERE h.id = 1 FOR UPDATE;
    SELECT l.id, l.hash INTO last_id, last_hash FROM paydesk.audit_log l ORDER BY l.id DESC LIMIT 1;
    NEW.id := coalesce(last_id, 0) + 1;
    NEW.db_user := session_user;
    NEW.operator := session_user;
    NEW.prev_hash := coalesce(last_hash, '');
    NEW.hash := pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(pg_catalog.concat_ws(E'\x1f',
        NEW.prev_hash, NEW.id::pg_catalog.text, NEW.at::pg_catalog.text, NEW.profile, NEW.operator,
        NEW.operation, NEW.identifiers, NEW.result, NEW.latency_ms::pg_catalog.text, NEW.db_user),
        'UTF8')), 'hex');
    RETURN NEW;
END $$;

-- A desk appends in its own name only: an operator other than the session's user is
-- refused (the row would say it anyway).
CREATE OR REPLACE FUNCTION paydesk.audit_append(at bigint, profile text, operator text, operation text,
    identifiers text, result text, latency_ms bigint) RETURNS paydesk.audit_log
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE r paydesk.audit_log;
BEGIN
    IF audit_append.operator IS DISTINCT FROM session_user::pg_catalog.text THEN
        RAISE EXCEPTION 'operator: the audit log''s operator is the database user who writes the row (%), not %',
            session_user, audit_append.operator;
    END IF;
    INSERT INTO paydesk.audit_log (at, profile, operator, operation, identifiers, result, latency_ms)
    VALUES (audit_append.at, audit_append.profile, session_user, audit_append.operation,
            audit_append.identifiers, audit_append.result, audit_append.latency_ms)
    RETURNING * INTO r;
    RETURN r;
END $$;

-- The login roles the team made: the only existing roles `add_member` may give a login
-- and a password again (a removed member, added back). Every other role of the cluster
-- (the owner, a superuser, another application's login) is out of the team's reach.
CREATE TABLE paydesk.logins (
    name        text PRIMARY KEY,
    created_by  text NOT NULL DEFAULT session_user,
    created_at  timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON paydesk.logins FROM PUBLIC;
INSERT INTO paydesk.logins (name)
    SELECT m.name FROM paydesk.members m JOIN pg_catalog.pg_roles r ON r.rolname = m.name
     WHERE NOT r.rolsuper AND NOT r.rolcreaterole AND NOT r.rolreplication AND NOT r.rolbypassrls;

-- A new password reaches the database as its SCRAM verifier, by COPY into this table in
-- the transaction that uses it (the function deletes it at once): a statement's
-- parameters may be written to the server's log (log_statement, slow statements), COPY's
-- data never is. Members may write here, never read.
CREATE UNLOGGED TABLE paydesk.new_passwords (
    written_by  text NOT NULL DEFAULT session_user,
    member      text NOT NULL,
    verifier    text NOT NULL
);
REVOKE ALL ON paydesk.new_passwords FROM PUBLIC;
GRANT INSERT (member, verifier) ON paydesk.new_passwords TO paydesk_admin;

-- Whether the session's user keeps the team's members: an admin, or the schema's owner
-- (who adds the first admin).
CREATE FUNCTION paydesk.keeps_members() RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT pg_catalog.pg_has_role(session_user, 'paydesk_admin', 'MEMBER')
        OR EXISTS (SELECT 1 FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_roles r ON r.oid = n.nspowner
                   WHERE n.nspname = 'paydesk' AND r.rolname OPERATOR(pg_catalog.=) session_user)
$$;
REVOKE ALL ON FUNCTION paydesk.keeps_members() FROM PUBLIC;

-- The rules a role must meet to be a member: not the owner, no superuser, no role that
-- makes roles, replicates or bypasses row-level security. Raises, naming the rule.
CREATE FUNCTION paydesk.check_member_role(member text) RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE r pg_catalog.pg_roles;
BEGIN
    SELECT * INTO r FROM pg_catalog.pg_roles WHERE rolname = member;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF r.rolname OPERATOR(pg_catalog.=) current_user
       OR r.oid OPERATOR(pg_catalog.=) (SELECT n.nspowner FROM pg_catalog.pg_namespace n WHERE n.nspname = 'paydesk') THEN
        RAISE EXCEPTION 'member %: the team''s owner is never a member', member;
    END IF;
    IF r.rolsuper OR r.rolcreaterole OR r.rolreplication OR r.rolbypassrls THEN
        RAISE EXCEPTION 'member %: a superuser, or a role that creates roles, replicates or bypasses row-level security, is never a member', member;
    END IF;
END $$;
REVOKE ALL ON FUNCTION paydesk.check_member_role(text) FROM PUBLIC;

-- The verifier this session wrote for `member` in this transaction (all it wrote is
-- deleted): refused unless it is one.
CREATE FUNCTION paydesk.take_new_password(member text) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE v text; n integer;
BEGIN
    SELECT count(*), max(p.verifier) INTO n, v FROM paydesk.new_passwords p
     WHERE p.written_by OPERATOR(pg_catalog.=) session_user::pg_catalog.text
       AND p.member OPERATOR(pg_catalog.=) take_new_password.member;
    DELETE FROM paydesk.new_passwords p WHERE p.written_by OPERATOR(pg_catalog.=) session_user::pg_catalog.text;
    IF n <> 1 THEN
        RAISE EXCEPTION 'password: write one SCRAM-SHA-256 verifier for % to paydesk.new_passwords (COPY) in this transaction first', member;
    END IF;
    IF v !~ '^SCRAM-SHA-256\$[0-9]+:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$' THEN
        RAISE EXCEPTION 'password: the password is given as its SCRAM-SHA-256 verifier';
    END IF;
    RETURN v;
END $$;
REVOKE ALL ON FUNCTION paydesk.take_new_password(text) FROM PUBLIC;

-- A statement that sets a password, run so that no error of it carries the verifier
-- (an error's context would quote the statement, to the caller and the server's log).
CREATE FUNCTION paydesk.set_login(member text, verifier text, create_it boolean) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
BEGIN
    BEGIN
        IF create_it THEN
            EXECUTE pg_catalog.format('CREATE ROLE %I WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD %L', member, verifier);
        ELSE
            EXECUTE pg_catalog.format('ALTER ROLE %I WITH LOGIN PASSWORD %L', member, verifier);
        END IF;
    EXCEPTION WHEN others THEN
        RAISE EXCEPTION 'member %: the login could not be set (%)', member, SQLSTATE;
    END;
    -- A member who waits on a lock gives up instead of hanging, and a transaction left
    -- open lets go of what it holds.
    EXECUTE pg_catalog.format('ALTER ROLE %I SET lock_timeout = %L', member, '10s');
    EXECUTE pg_catalog.format('ALTER ROLE %I SET idle_in_transaction_session_timeout = %L', member, '60s');
END $$;
REVOKE ALL ON FUNCTION paydesk.set_login(text, text, boolean) FROM PUBLIC;

-- The team's roles a member holds, as text for people.
CREATE FUNCTION paydesk.roles_text(member text) RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT CASE WHEN pg_catalog.cardinality(paydesk.roles_of(member::pg_catalog.name)) = 0 THEN 'none'
                ELSE pg_catalog.array_to_string(paydesk.roles_of(member::pg_catalog.name), ',') END
$$;

ALTER TABLE paydesk.members DROP CONSTRAINT members_role_check;
ALTER TABLE paydesk.members ADD CONSTRAINT members_role_check
    CHECK (role ~ '^(viewer|support|maker|approver|signer|admin)(,(viewer|support|maker|approver|signer|admin))*$');

-- Adds a member: a new login role (or a removed member's, added back), never a role of
-- the cluster the team did not make. An existing member's roles and password change
-- through `set_member_roles` and `reset_member_password`. The verifier comes through
-- paydesk.new_passwords (see there).
DROP FUNCTION paydesk.add_member(text, text, text);
CREATE FUNCTION paydesk.add_member(member text, team_role text) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE v text; known boolean;
BEGIN
    IF NOT paydesk.keeps_members() THEN
        RAISE EXCEPTION 'only an admin adds members';
    END IF;
    IF member !~ '^[a-z][a-z0-9_]{0,49}$' OR member LIKE 'paydesk\_%' OR member LIKE 'pg\_%' THEN
        RAISE EXCEPTION 'member name %: 1 to 50 lowercase letters, digits and underscores, starting with a letter', member;
    END IF;
    IF team_role IS NULL OR team_role NOT IN ('viewer', 'support', 'maker', 'approver', 'signer', 'admin') THEN
        RAISE EXCEPTION 'role %: one of viewer, support, maker, approver, signer, admin', team_role;
    END IF;
    IF EXISTS (SELECT 1 FROM paydesk.members m WHERE m.name = member) THEN
        RAISE EXCEPTION 'member %: already a member (holds %); change the role with `team user role`, the password with `team user password`',
            member, paydesk.roles_text(member);
    END IF;
    PERFORM paydesk.check_member_role(member);
    known := EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = member);
    IF known AND NOT EXISTS (SELECT 1 FROM paydesk.logins l WHERE l.name = member) THEN
        RAISE EXCEPTION 'member %: a database role the team did not make is never taken over (choose another name)', member;
    END IF;
    v := paydesk.take_new_password(member);
    PERFORM paydesk.set_login(member, v, NOT known);
    INSERT INTO paydesk.logins (name) VALUES (member) ON CONFLICT (name) DO NOTHING;
    PERFORM paydesk.set_member_group_roles(member, ARRAY[team_role]);
    INSERT INTO paydesk.members (name, role) VALUES (member, team_role);
    PERFORM paydesk.audit('team.member.add', 'member=' || member, 'role=' || team_role);
    RETURN paydesk.roles_text(member);
END $$;
REVOKE ALL ON FUNCTION paydesk.add_member(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.add_member(text, text) TO paydesk_admin;

-- Gives a member exactly these team roles: the others are revoked.
CREATE FUNCTION paydesk.set_member_group_roles(member text, team_roles text[]) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE r text;
BEGIN
    FOREACH r IN ARRAY ARRAY['viewer', 'support', 'maker', 'approver', 'signer', 'admin'] LOOP
        IF r = ANY (team_roles) THEN
            EXECUTE pg_catalog.format('GRANT %I TO %I', 'paydesk_' || r, member);
        ELSIF pg_catalog.pg_has_role(member, 'paydesk_' || r, 'MEMBER') THEN
            EXECUTE pg_catalog.format('REVOKE %I FROM %I', 'paydesk_' || r, member);
        END IF;
    END LOOP;
END $$;
REVOKE ALL ON FUNCTION paydesk.set_member_group_roles(text, text[]) FROM PUBLIC;

-- A member's roles change: replaced by these (the previous ones revoked). Says what the
-- member holds now.
CREATE FUNCTION paydesk.set_member_roles(member text, team_roles text[]) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE r text; before text; after text;
BEGIN
    IF NOT paydesk.keeps_members() THEN
        RAISE EXCEPTION 'only an admin changes members'' roles';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM paydesk.members m WHERE m.name = member) THEN
        RAISE EXCEPTION 'member %: not a member of the team', member;
    END IF;
    PERFORM paydesk.check_member_role(member);
    IF team_roles IS NULL OR pg_catalog.cardinality(team_roles) = 0 THEN
        RAISE EXCEPTION 'role: at least one (to take every role away, remove the member)';
    END IF;
    FOREACH r IN ARRAY team_roles LOOP
        IF r IS NULL OR r NOT IN ('viewer', 'support', 'maker', 'approver', 'signer', 'admin') THEN
            RAISE EXCEPTION 'role %: one of viewer, support, maker, approver, signer, admin', r;
        END IF;
    END LOOP;
    before := paydesk.roles_text(member);
    PERFORM paydesk.set_member_group_roles(member, team_roles);
    after := paydesk.roles_text(member);
    UPDATE paydesk.members m SET role = after, added_by = session_user, added_at = now()
     WHERE m.name = member;
    PERFORM paydesk.audit('team.member.role', 'member=' || member, 'roles ' || before || ' -> ' || after);
    RETURN after;
END $$;
REVOKE ALL ON FUNCTION paydesk.set_member_roles(text, text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.set_member_roles(text, text[]) TO paydesk_admin;

-- A member's new password, its own audited step (the verifier through
-- paydesk.new_passwords, as for add_member).
CREATE FUNCTION paydesk.reset_member_password(member text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE v text;
BEGIN
    IF NOT paydesk.keeps_members() THEN
        RAISE EXCEPTION 'only an admin resets members'' passwords';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM paydesk.members m WHERE m.name = member)
       OR NOT EXISTS (SELECT 1 FROM paydesk.logins l WHERE l.name = member) THEN
        RAISE EXCEPTION 'member %: not a member the team made; only a member''s password is reset', member;
    END IF;
    PERFORM paydesk.check_member_role(member);
    v := paydesk.take_new_password(member);
    PERFORM paydesk.set_login(member, v, false);
    PERFORM paydesk.audit('team.member.password', 'member=' || member, 'password reset');
END $$;
REVOKE ALL ON FUNCTION paydesk.reset_member_password(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.reset_member_password(text) TO paydesk_admin;

-- Removing: only a member, never the owner or a privileged role.
CREATE OR REPLACE FUNCTION paydesk.remove_member(member text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp AS $$
BEGIN
    IF NOT paydesk.keeps_members() THEN
        RAISE EXCEPTION 'only an admin removes members';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM paydesk.members m WHERE m.name = member) THEN
        RAISE EXCEPTION 'no member %', member;
    END IF;
    PERFORM paydesk.check_member_role(member);
    PERFORM paydesk.set_member_group_roles(member, ARRAY[]::text[]);
    EXECUTE pg_catalog.format('ALTER ROLE %I WITH NOLOGIN', member);
    DELETE FROM paydesk.members m WHERE m.name = member;
    PERFORM paydesk.audit('team.member.remove', 'member=' || member, 'removed');
END $$;

-- Members already in the team: given up on a lock after a while too.
DO $$
DECLARE m text;
BEGIN
    FOR m IN SELECT l.name FROM paydesk.logins l JOIN pg_catalog.pg_roles r ON r.rolname = l.name LOOP
        EXECUTE pg_catalog.format('ALTER ROLE %I SET lock_timeout = %L', m, '10s');
        EXECUTE pg_catalog.format('ALTER ROLE %I SET idle_in_transaction_session_timeout = %L', m, '60s');
    END LOOP;
END $$;

-- Every SECURITY DEFINER function of the team: the search path with pg_temp last (so
-- no member's temporary object is found before the catalog's), and a bound on how long
-- it waits for a lock (a member holding one cannot stall the others).
DO $$
DECLARE f regprocedure;
BEGIN
    FOR f IN SELECT p.oid::regprocedure FROM pg_catalog.pg_proc p
             WHERE p.pronamespace = 'paydesk'::regnamespace AND p.prosecdef LOOP
        EXECUTE pg_catalog.format('ALTER FUNCTION %s SET search_path = pg_catalog, paydesk, pg_temp', f);
        EXECUTE pg_catalog.format('ALTER FUNCTION %s SET lock_timeout = %L', f, '10s');
    END LOOP;
END $$;
