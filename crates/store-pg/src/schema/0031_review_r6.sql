-- Review r6 (R6-1): look-alike nicknames. The skeleton a nickname is compared by is
-- built from its NFKC form (fullwidth and mathematical letters fold to the ones they
-- imitate), with the capitals that read as Latin letters mapped BEFORE lowercasing (all
-- Greek "ΑΝΝΑ" reads "ANNA"; a capital I reads as l), then the small letters of Greek,
-- Cyrillic and Armenian that print as Latin ones, 0 and 1, and "rn" read as "m". The
-- one-script rule takes the NFKC form too, and every block of Greek, Cyrillic and
-- Armenian (`normalize(x, NFKC)` is SQL syntax: it cannot be schema-qualified; the
-- search_path is pinned to pg_catalog first). The desk applies the same rule (crates/core/src/beneficiaries.rs
-- `nickname_skeleton`, `mixes_scripts`).
CREATE OR REPLACE FUNCTION paydesk.nickname_skeleton(nickname text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT pg_catalog.replace(pg_catalog.translate(pg_catalog.lower(pg_catalog.translate(
        pg_catalog.btrim(normalize(nickname, NFKC)),
        'ΑΒΕΖΗΙΚΜΝΟΡΤΥΧАВЕКМНОРСТХУІЈЅӀԚԜI',
        'abezhlkmnoptyxabekmhopctxyljslqwl')),
        'аеорсухіјѕԁӏһԛԝкмнвтгαοριυνκτχβεηζօսհոռցքզⲟ01',
        'aeopcyxijsdlhqwkmhbtraopiuvktxbenzouhnngpqool'),
        'rn', 'm')
$$;
REVOKE ALL ON FUNCTION paydesk.nickname_skeleton(text) FROM PUBLIC;

-- Latin letters with Greek, Cyrillic (any block) or Armenian ones, in the NFKC form.
CREATE FUNCTION paydesk.nickname_mixes_scripts(nickname text) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT normalize(nickname, NFKC) OPERATOR(pg_catalog.~) '[A-Za-z]'
       AND normalize(nickname, NFKC) OPERATOR(pg_catalog.~)
           '[\u0370-\u03ff\u1f00-\u1fff\u0400-\u052f\u1c80-\u1c8f\u2de0-\u2dff\ua640-\ua69f\u0530-\u058f]'
$$;
REVOKE ALL ON FUNCTION paydesk.nickname_mixes_scripts(text) FROM PUBLIC;

ALTER TABLE paydesk.beneficiaries DROP CONSTRAINT beneficiaries_one_script;
ALTER TABLE paydesk.beneficiaries ADD CONSTRAINT beneficiaries_one_script CHECK (
    NOT paydesk.nickname_mixes_scripts(nickname)) NOT VALID;

-- The payee's add: the one-script rule above (the look-alike check calls the new skeleton).
CREATE OR REPLACE FUNCTION paydesk.add_beneficiary(merchant bigint, nickname text, kind text,
    first_name text, last_name text, account_masked text, account_sealed text, bank text,
    country text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE needs boolean; new_id bigint; alike text;
BEGIN
    IF NOT (pg_catalog.pg_has_role(session_user, 'paydesk_maker', 'MEMBER')
            OR pg_catalog.pg_has_role(session_user, 'paydesk_admin', 'MEMBER')) THEN
        RAISE EXCEPTION 'beneficiary: only a maker or an admin adds a payee' USING ERRCODE = '42501';
    END IF;
    -- One add at a time: the look-alike check below sees every payee added before. (A
    -- mode no request, approval or removal waits for: they take ROW SHARE or ROW
    -- EXCLUSIVE; a member cannot take it but through this function, in a transaction
    -- `end_stalls` ends when it holds others up.)
    LOCK TABLE paydesk.beneficiaries IN SHARE UPDATE EXCLUSIVE MODE;
    SELECT t.payee_approval INTO needs FROM paydesk.team t
     WHERE t.mer_no OPERATOR(pg_catalog.=) add_beneficiary.merchant
       FOR SHARE;
    IF needs IS NULL THEN
        RAISE EXCEPTION 'merchant: % is not this team''s merchant', add_beneficiary.merchant;
    END IF;
    IF paydesk.nickname_mixes_scripts(add_beneficiary.nickname) THEN
        RAISE EXCEPTION 'nickname: % mixes Latin letters with Greek, Cyrillic or Armenian ones (a look-alike of another name): use one script', add_beneficiary.nickname
            USING ERRCODE = 'check_violation';
    END IF;
    INSERT INTO paydesk.beneficiaries (mer_no, nickname, nickname_key, kind, first_name,
        last_name, account_masked, account_sealed, bank, country, needs_approval, added_by,
        approved_by, approved_at)
    VALUES (add_beneficiary.merchant, pg_catalog.btrim(add_beneficiary.nickname),
        pg_catalog.lower(pg_catalog.btrim(add_beneficiary.nickname)), add_beneficiary.kind,
        add_beneficiary.first_name, add_beneficiary.last_name, add_beneficiary.account_masked,
        add_beneficiary.account_sealed, add_beneficiary.bank, add_beneficiary.country, needs,
        session_user,
        CASE WHEN needs THEN NULL ELSE session_user END,
        CASE WHEN needs THEN NULL ELSE pg_catalog.now() END)
    RETURNING id INTO new_id;
    -- After the row's own checks (printable text...), so their refusal is said first;
    -- a look-alike undoes the insert with the statement.
    SELECT x.nickname INTO alike FROM paydesk.beneficiaries x
     WHERE x.mer_no OPERATOR(pg_catalog.=) add_beneficiary.merchant
       AND x.id OPERATOR(pg_catalog.<>) new_id
       AND x.nickname_key OPERATOR(pg_catalog.<>) pg_catalog.lower(pg_catalog.btrim(add_beneficiary.nickname))
       AND paydesk.nickname_skeleton(x.nickname) OPERATOR(pg_catalog.=) paydesk.nickname_skeleton(add_beneficiary.nickname)
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'nickname: % reads like payee % already in the book: choose a nickname that does not', add_beneficiary.nickname, alike
            USING ERRCODE = 'check_violation';
    END IF;
    PERFORM paydesk.audit('team.payee.add',
        pg_catalog.format('nickname=%s account=%s id=%s', pg_catalog.btrim(add_beneficiary.nickname),
            add_beneficiary.account_masked, new_id),
        CASE WHEN needs THEN 'awaiting approval' ELSE 'ok' END);
    RETURN new_id;
EXCEPTION WHEN unique_violation THEN
    RAISE EXCEPTION 'nickname: the book already has a payee %', pg_catalog.btrim(add_beneficiary.nickname);
END $$;
REVOKE ALL ON FUNCTION paydesk.add_beneficiary(bigint, text, text, text, text, text, text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.add_beneficiary(bigint, text, text, text, text, text, text, text, text)
    TO paydesk_viewer, paydesk_support, paydesk_maker, paydesk_approver, paydesk_signer,
    paydesk_admin;

