-- Review sql-r6 F1: a payee is approved by its row (id) and the hash of its sealed
-- account as the approver was shown them, never by nickname: a maker who removes the
-- payee and adds the nickname again with another account while the approver looks
-- makes a new row (a new id, another seal), which this approval does not reach.
CREATE FUNCTION paydesk.approve_beneficiary(merchant bigint, payee_id bigint, sealed_sha256 text)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE b paydesk.beneficiaries;
BEGIN
    IF NOT (pg_catalog.pg_has_role(session_user, 'paydesk_approver', 'MEMBER')
            OR pg_catalog.pg_has_role(session_user, 'paydesk_signer', 'MEMBER')
            OR pg_catalog.pg_has_role(session_user, 'paydesk_admin', 'MEMBER')) THEN
        RAISE EXCEPTION 'beneficiary: only an approver, a signer or an admin approves a payee' USING ERRCODE = '42501';
    END IF;
    IF approve_beneficiary.merchant IS NULL OR approve_beneficiary.payee_id IS NULL
       OR approve_beneficiary.sealed_sha256 IS NULL
       OR approve_beneficiary.sealed_sha256 OPERATOR(pg_catalog.!~) '^[0-9a-f]{64}$' THEN
        RAISE EXCEPTION 'beneficiary: a payee is approved by its id and the SHA-256 (64 hex digits) of its sealed account'
            USING ERRCODE = '22023';
    END IF;
    SELECT * INTO b FROM paydesk.beneficiaries x
     WHERE x.mer_no OPERATOR(pg_catalog.=) approve_beneficiary.merchant
       AND x.id OPERATOR(pg_catalog.=) approve_beneficiary.payee_id
       FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'beneficiary: payee % is no longer in the book (removed, or added again as another payee): look at the book again', approve_beneficiary.payee_id;
    END IF;
    IF paydesk.payee_seal_hash(b.account_sealed) OPERATOR(pg_catalog.<>) approve_beneficiary.sealed_sha256 THEN
        RAISE EXCEPTION 'beneficiary: payee % (id %) holds another account than the one you were shown: look at the book again', b.nickname, b.id;
    END IF;
    IF b.approved_by IS NOT NULL THEN
        RAISE EXCEPTION 'nickname: payee % is already approved', b.nickname;
    END IF;
    IF b.added_by OPERATOR(pg_catalog.=) session_user::pg_catalog.text THEN
        RAISE EXCEPTION 'beneficiary: four eyes: payee % was added by you; another member approves it', b.nickname
            USING ERRCODE = '42501';
    END IF;
    UPDATE paydesk.beneficiaries SET approved_by = session_user, approved_at = pg_catalog.now()
     WHERE id OPERATOR(pg_catalog.=) b.id;
    PERFORM paydesk.audit('team.payee.approve',
        pg_catalog.format('id=%s nickname=%s account=%s added_by=%s', b.id, b.nickname, b.account_masked, b.added_by), 'ok');
END $$;
REVOKE ALL ON FUNCTION paydesk.approve_beneficiary(bigint, bigint, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.approve_beneficiary(bigint, bigint, text)
    TO paydesk_approver, paydesk_signer, paydesk_admin;

-- The nickname's approval approves nothing any more (an older desk calling it is told
-- why), and no member may call it.
CREATE OR REPLACE FUNCTION paydesk.approve_beneficiary(merchant bigint, nickname text) RETURNS void
LANGUAGE plpgsql SECURITY INVOKER SET search_path = pg_catalog, paydesk, pg_temp AS $$
BEGIN
    RAISE EXCEPTION 'beneficiary: a payee is approved by its id and sealed account, not by nickname: update PayDesk'
        USING ERRCODE = '42501';
END $$;
REVOKE ALL ON FUNCTION paydesk.approve_beneficiary(bigint, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION paydesk.approve_beneficiary(bigint, text) FROM paydesk_viewer,
    paydesk_support, paydesk_maker, paydesk_approver, paydesk_signer, paydesk_admin;

-- Review sql-r6 F2a: invisible "default-ignorable" characters NFKC keeps (the combining
-- grapheme joiner, Hangul fillers, Khmer and Mongolian invisibles, variation selectors,
-- tag characters, shorthand and musical format controls) are not printable either: "Acme"
-- with a variation selector prints as "Acme". The desk refuses the same
-- (crates/core/src/beneficiaries.rs `forbidden`). NOT VALID: a payee already in a book
-- stays (it can be removed); every new or changed row is held to it.
ALTER TABLE paydesk.beneficiaries ADD CONSTRAINT beneficiaries_printable_r6 CHECK (
    nickname OPERATOR(pg_catalog.!~) '[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]'
    AND first_name OPERATOR(pg_catalog.!~) '[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]'
    AND last_name OPERATOR(pg_catalog.!~) '[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]'
    AND coalesce(bank, '') OPERATOR(pg_catalog.!~) '[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]'
) NOT VALID;

-- F2b: the skeleton lowercases in one collation whatever the caller's: the book's column
-- is COLLATE "C" (which lowercases ASCII only) and a new nickname is in the database's
-- default, so "ÉTAT" in the book and a new "état" had different skeletons. ICU's root
-- collation where the server has it (it lowercases every script), else the default.
DO $do$
DECLARE coll text := CASE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_collation c
                                        WHERE c.collname OPERATOR(pg_catalog.=) 'und-x-icu'
                                          AND c.collnamespace OPERATOR(pg_catalog.=) 'pg_catalog'::pg_catalog.regnamespace)
                          THEN 'pg_catalog."und-x-icu"' ELSE 'pg_catalog."default"' END;
BEGIN
    EXECUTE pg_catalog.format($f$
CREATE OR REPLACE FUNCTION paydesk.nickname_skeleton(nickname text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT pg_catalog.replace(pg_catalog.translate(pg_catalog.lower(pg_catalog.translate(
        pg_catalog.btrim(normalize(nickname, NFKC)),
        'ΑΒΕΖΗΙΚΜΝΟΡΤΥΧАВЕКМНОРСТХУІЈЅӀԚԜI',
        'abezhlkmnoptyxabekmhopctxyljslqwl') COLLATE %s),
        'аеорсухіјѕԁӏһԛԝкмнвтгαοριυνκτχβεηζօսհոռցքզⲟ01',
        'aeopcyxijsdlhqwkmhbtraopiuvktxbenzouhnngpqool'),
        'rn', 'm')
$$$f$, coll);
END $do$;
REVOKE ALL ON FUNCTION paydesk.nickname_skeleton(text) FROM PUBLIC;

-- F2c: Latin letters with diacritics (Latin-1, Extended-A/B, Extended Additional) are
-- Latin in the one-script rule: "ÉΤΑΤ" (É with Greek Tau, Alpha, Tau) mixes scripts.
CREATE OR REPLACE FUNCTION paydesk.nickname_mixes_scripts(nickname text) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT normalize(nickname, NFKC) OPERATOR(pg_catalog.~) '[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff]'
       AND normalize(nickname, NFKC) OPERATOR(pg_catalog.~)
           '[\u0370-\u03ff\u1f00-\u1fff\u0400-\u052f\u1c80-\u1c8f\u2de0-\u2dff\ua640-\ua69f\u0530-\u058f]'
$$;
REVOKE ALL ON FUNCTION paydesk.nickname_mixes_scripts(text) FROM PUBLIC;
