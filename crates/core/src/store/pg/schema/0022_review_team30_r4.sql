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
