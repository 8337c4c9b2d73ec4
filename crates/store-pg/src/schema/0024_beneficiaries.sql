-- Issue 35, item 2: the team's book of payees. What the database holds, whatever a
-- member sends with plain SQL:
--   * every member reads the book; nobody holds INSERT, UPDATE, DELETE or TRUNCATE on
--     it: payees are added, approved and removed through the functions below only;
--   * a full account is never in the table in clear: `account_masked` must be masked
--     (first 6, last 4 digits, stars between) and `account_sealed` must have the shape
--     of a value sealed to the signers (RSA-OAEP under the merchant key, base64 of one
--     2048-, 3072- or 4096-bit block), which no member but a signer's desk can open.
--     (The database cannot tell a ciphertext from other bytes of that length: a maker
--     could store an account they typed themselves in a readable form, never one that
--     a desk sealed.)
--   * when an admin turns `team.payee_approval` on, a payee added is not approved until
--     a member other than the one who added it (an approver, signer or admin) approves
--     it: the function refuses the adder, and a CHECK holds it too;
--   * adding, approving and removing are in the team's audit log.

ALTER TABLE paydesk.team ADD COLUMN payee_approval boolean NOT NULL DEFAULT false;
GRANT UPDATE (payee_approval) ON paydesk.team TO paydesk_admin;

CREATE TABLE paydesk.beneficiaries (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    mer_no          bigint NOT NULL,
    nickname        text COLLATE "C" NOT NULL
        CHECK (pg_catalog.length(nickname) BETWEEN 1 AND 40
               AND nickname OPERATOR(pg_catalog.!~) '[[:cntrl:]]'
               AND pg_catalog.left(nickname, 1) OPERATOR(pg_catalog.<>) ALL (ARRAY['=', '+', '-', '@'])),
    nickname_key    text COLLATE "C" NOT NULL,
    kind            text NOT NULL CHECK (kind IN ('clabe', 'card')),
    first_name      text NOT NULL CHECK (pg_catalog.length(first_name) <= 80 AND first_name OPERATOR(pg_catalog.!~) '[[:cntrl:]]'),
    last_name       text NOT NULL CHECK (pg_catalog.length(last_name) <= 80 AND last_name OPERATOR(pg_catalog.!~) '[[:cntrl:]]'),
    account_masked  text NOT NULL CHECK (account_masked OPERATOR(pg_catalog.~) '^[0-9]{6}[*]{2,9}[0-9]{4}$'),
    account_sealed  text NOT NULL
        CHECK (CASE WHEN account_sealed OPERATOR(pg_catalog.~) '^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$'
                    THEN pg_catalog.octet_length(pg_catalog.decode(account_sealed, 'base64')) IN (256, 384, 512)
                    ELSE false END),
    bank            text CHECK (bank IS NULL OR pg_catalog.length(bank) <= 80),
    country         text NOT NULL CHECK (country OPERATOR(pg_catalog.~) '^[A-Z]{2}$'),
    needs_approval  boolean NOT NULL,
    added_by        text NOT NULL,
    added_at        timestamptz NOT NULL DEFAULT pg_catalog.now(),
    approved_by     text,
    approved_at     timestamptz,
    UNIQUE (mer_no, nickname_key),
    -- Four eyes: a payee that needed an approval is approved by someone else.
    CHECK (approved_by IS NULL OR NOT needs_approval OR approved_by OPERATOR(pg_catalog.<>) added_by),
    CHECK (needs_approval OR approved_by IS NOT NULL)
);
ALTER TABLE paydesk.beneficiaries ENABLE ROW LEVEL SECURITY;
CREATE POLICY beneficiaries_read ON paydesk.beneficiaries FOR SELECT USING (true);
REVOKE ALL ON paydesk.beneficiaries FROM PUBLIC;
GRANT SELECT ON paydesk.beneficiaries
    TO paydesk_viewer, paydesk_support, paydesk_maker, paydesk_approver, paydesk_signer,
    paydesk_admin;

-- Adds a payee (a maker or an admin); its id. Approved at once unless the team's
-- setting asks for another member's approval.
CREATE FUNCTION paydesk.add_beneficiary(merchant bigint, nickname text, kind text,
    first_name text, last_name text, account_masked text, account_sealed text, bank text,
    country text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE needs boolean; new_id bigint;
BEGIN
    IF NOT (pg_catalog.pg_has_role(session_user, 'paydesk_maker', 'MEMBER')
            OR pg_catalog.pg_has_role(session_user, 'paydesk_admin', 'MEMBER')) THEN
        RAISE EXCEPTION 'beneficiary: only a maker or an admin adds a payee' USING ERRCODE = '42501';
    END IF;
    SELECT t.payee_approval INTO needs FROM paydesk.team t
     WHERE t.mer_no OPERATOR(pg_catalog.=) add_beneficiary.merchant;
    IF needs IS NULL THEN
        RAISE EXCEPTION 'merchant: % is not this team''s merchant', add_beneficiary.merchant;
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
    PERFORM paydesk.audit('team.payee.add',
        pg_catalog.format('nickname=%s account=%s', pg_catalog.btrim(add_beneficiary.nickname), add_beneficiary.account_masked),
        CASE WHEN needs THEN 'awaiting approval' ELSE 'ok' END);
    RETURN new_id;
EXCEPTION WHEN unique_violation THEN
    RAISE EXCEPTION 'nickname: the book already has a payee %', pg_catalog.btrim(add_beneficiary.nickname);
END $$;

-- Approves a payee awaiting approval: an approver, signer or admin who did not add it.
CREATE FUNCTION paydesk.approve_beneficiary(merchant bigint, nickname text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE b paydesk.beneficiaries;
BEGIN
    IF NOT (pg_catalog.pg_has_role(session_user, 'paydesk_approver', 'MEMBER')
            OR pg_catalog.pg_has_role(session_user, 'paydesk_signer', 'MEMBER')
            OR pg_catalog.pg_has_role(session_user, 'paydesk_admin', 'MEMBER')) THEN
        RAISE EXCEPTION 'beneficiary: only an approver, a signer or an admin approves a payee' USING ERRCODE = '42501';
    END IF;
    SELECT * INTO b FROM paydesk.beneficiaries x
     WHERE x.mer_no OPERATOR(pg_catalog.=) approve_beneficiary.merchant
       AND x.nickname_key OPERATOR(pg_catalog.=) pg_catalog.lower(pg_catalog.btrim(approve_beneficiary.nickname))
       FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'nickname: no payee % in the book', approve_beneficiary.nickname;
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
        pg_catalog.format('nickname=%s account=%s added_by=%s', b.nickname, b.account_masked, b.added_by), 'ok');
END $$;

-- Removes a payee (a maker or an admin); false when there is none.
CREATE FUNCTION paydesk.remove_beneficiary(merchant bigint, nickname text) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE gone paydesk.beneficiaries;
BEGIN
    IF NOT (pg_catalog.pg_has_role(session_user, 'paydesk_maker', 'MEMBER')
            OR pg_catalog.pg_has_role(session_user, 'paydesk_admin', 'MEMBER')) THEN
        RAISE EXCEPTION 'beneficiary: only a maker or an admin removes a payee' USING ERRCODE = '42501';
    END IF;
    DELETE FROM paydesk.beneficiaries x
     WHERE x.mer_no OPERATOR(pg_catalog.=) remove_beneficiary.merchant
       AND x.nickname_key OPERATOR(pg_catalog.=) pg_catalog.lower(pg_catalog.btrim(remove_beneficiary.nickname))
    RETURNING * INTO gone;
    IF gone.id IS NULL THEN
        RETURN false;
    END IF;
    PERFORM paydesk.audit('team.payee.remove',
        pg_catalog.format('nickname=%s account=%s', gone.nickname, gone.account_masked), 'ok');
    RETURN true;
END $$;

REVOKE ALL ON FUNCTION paydesk.add_beneficiary(bigint, text, text, text, text, text, text, text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION paydesk.approve_beneficiary(bigint, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION paydesk.remove_beneficiary(bigint, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.add_beneficiary(bigint, text, text, text, text, text, text, text, text),
    paydesk.approve_beneficiary(bigint, text), paydesk.remove_beneficiary(bigint, text)
    TO paydesk_viewer, paydesk_support, paydesk_maker, paydesk_approver, paydesk_signer,
    paydesk_admin;
