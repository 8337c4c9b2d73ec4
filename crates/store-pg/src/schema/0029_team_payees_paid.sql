-- Issue 35 (team35): a team's payouts take their payee from the team's book, and the
-- database holds the binding; the member's limits as the maker's desk checks them first;
-- the signer's worker's heartbeat; review r5 F5 (HIGH 3), F3 and F8's rest. Attacked as
-- each role with plain SQL first (tests/team/team_payees_paid.rs). Every function pins
-- its search_path (pg_temp last) and is revoked from PUBLIC; the definer ones take a
-- lock bound.

-- F5. A payee's sealed account is the signers' (they open it when they pay): makers,
-- approvers and admins read every other column, and the hash of the seal, which is what
-- a request row names (so a maker never needs the seal itself, nor can copy one under
-- another nickname).
REVOKE SELECT ON paydesk.beneficiaries FROM paydesk_maker, paydesk_approver, paydesk_admin;
GRANT SELECT (id, mer_no, nickname, nickname_key, kind, first_name, last_name, account_masked,
    bank, country, needs_approval, added_by, added_at, approved_by, approved_at)
    ON paydesk.beneficiaries TO paydesk_maker, paydesk_approver, paydesk_admin;

-- The hash a request row names: SHA-256 (hex) of the sealed account's text.
CREATE FUNCTION paydesk.payee_seal_hash(sealed text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(sealed, 'UTF8')), 'hex')
$$;
REVOKE ALL ON FUNCTION paydesk.payee_seal_hash(text) FROM PUBLIC;
-- A view's functions run as the member reading it: every role reads the hash.
GRANT EXECUTE ON FUNCTION paydesk.payee_seal_hash(text) TO paydesk_viewer, paydesk_support,
    paydesk_maker, paydesk_approver, paydesk_signer, paydesk_admin;

CREATE OR REPLACE VIEW paydesk.beneficiaries_shown WITH (security_barrier) AS
SELECT b.id, b.mer_no, b.nickname, b.nickname_key, b.kind,
       CASE WHEN s.sees THEN b.first_name ELSE '' END AS first_name,
       CASE WHEN s.sees THEN b.last_name ELSE '' END AS last_name,
       b.account_masked,
       CASE WHEN s.sees THEN b.bank END AS bank,
       b.country, b.needs_approval, b.added_by, b.added_at, b.approved_by, b.approved_at,
       paydesk.payee_seal_hash(b.account_sealed) AS account_sealed_sha256
  FROM paydesk.beneficiaries b
 CROSS JOIN (SELECT pg_catalog.pg_has_role(session_user, 'paydesk_maker', 'MEMBER')
                 OR pg_catalog.pg_has_role(session_user, 'paydesk_approver', 'MEMBER')
                 OR pg_catalog.pg_has_role(session_user, 'paydesk_signer', 'MEMBER')
                 OR pg_catalog.pg_has_role(session_user, 'paydesk_admin', 'MEMBER') AS sees) s;

-- F5. A request row that pays a payee of the book names it in its form: `payeeId` (the
-- book's row) and `payeeSealedSha256` (the hash of its sealed account when the maker
-- chose it), and carries no account of its own. The row is refused unless that payee
-- is in this team's book, approved (whether or not the team asks for approvals, a
-- payee is approved when it may be paid), with that very seal (a payee removed and
-- added again, or another payee's hash, does not pass), of the form's kind, and the
-- row's beneficiary (what approvers read) names its masked account. The payee's row is
-- held (FOR SHARE) until the request commits, so it cannot be removed in between. The
-- signer's worker checks all of it again when it pays, and opens the seal.
CREATE FUNCTION paydesk.request_row_payee() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE r paydesk.requests; b paydesk.beneficiaries; given_id text; given_hash text;
BEGIN
    IF NOT (NEW.form OPERATOR(pg_catalog.?) 'payeeId' OR NEW.form OPERATOR(pg_catalog.?) 'payeeSealedSha256') THEN
        RETURN NEW;
    END IF;
    SELECT * INTO r FROM paydesk.requests q WHERE q.id OPERATOR(pg_catalog.=) NEW.request_id;
    IF NOT FOUND OR r.operation OPERATOR(pg_catalog.<>) 'payout' THEN
        RAISE EXCEPTION 'beneficiary: row %: only a payout pays a payee of the book', NEW.row_no
            USING ERRCODE = 'check_violation';
    END IF;
    given_id := NEW.form OPERATOR(pg_catalog.->>) 'payeeId';
    given_hash := NEW.form OPERATOR(pg_catalog.->>) 'payeeSealedSha256';
    IF pg_catalog.jsonb_typeof(NEW.form OPERATOR(pg_catalog.->) 'payeeId') IS DISTINCT FROM 'number'
       OR given_id OPERATOR(pg_catalog.!~) '^[0-9]{1,18}$'
       OR given_hash IS NULL OR given_hash OPERATOR(pg_catalog.!~) '^[0-9a-f]{64}$' THEN
        RAISE EXCEPTION 'beneficiary: row %: a payee is named by its id and the SHA-256 (hex) of its sealed account', NEW.row_no
            USING ERRCODE = 'check_violation';
    END IF;
    SELECT * INTO b FROM paydesk.beneficiaries x
     WHERE x.id OPERATOR(pg_catalog.=) given_id::bigint
       AND x.mer_no OPERATOR(pg_catalog.=) (SELECT t.mer_no FROM paydesk.team t WHERE t.id OPERATOR(pg_catalog.=) 1)
       FOR SHARE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'beneficiary: row %: payee #% is not in the team''s book (removed?)', NEW.row_no, given_id
            USING ERRCODE = 'check_violation';
    END IF;
    IF b.approved_by IS NULL THEN
        RAISE EXCEPTION 'beneficiary: row %: payee % waits for another member''s approval; it is not paid before', NEW.row_no, b.nickname
            USING ERRCODE = 'check_violation';
    END IF;
    IF paydesk.payee_seal_hash(b.account_sealed) OPERATOR(pg_catalog.<>) given_hash THEN
        RAISE EXCEPTION 'beneficiary: row %: payee % is not the one chosen (its sealed account differs)', NEW.row_no, b.nickname
            USING ERRCODE = 'check_violation';
    END IF;
    IF pg_catalog.lower(coalesce(NEW.form OPERATOR(pg_catalog.->>) 'kind', '')) OPERATOR(pg_catalog.<>) b.kind THEN
        RAISE EXCEPTION 'kind: row %: payee % is paid by %', NEW.row_no, b.nickname, b.kind
            USING ERRCODE = 'check_violation';
    END IF;
    IF coalesce(NEW.form OPERATOR(pg_catalog.->>) 'clabe', '') OPERATOR(pg_catalog.<>) ''
       OR coalesce(NEW.form OPERATOR(pg_catalog.->>) 'cardNo', '') OPERATOR(pg_catalog.<>) ''
       OR NEW.form OPERATOR(pg_catalog.?) 'sealedCardNo' THEN
        RAISE EXCEPTION 'beneficiary: row %: a row paying payee % carries no account of its own', NEW.row_no, b.nickname
            USING ERRCODE = 'check_violation';
    END IF;
    IF pg_catalog.strpos(NEW.beneficiary, b.account_masked) OPERATOR(pg_catalog.=) 0 THEN
        RAISE EXCEPTION 'beneficiary: row %: the row must name payee %''s account %', NEW.row_no, b.nickname, b.account_masked
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.request_row_payee() FROM PUBLIC;
CREATE TRIGGER request_row_payee BEFORE INSERT ON paydesk.request_rows
    FOR EACH ROW EXECUTE FUNCTION paydesk.request_row_payee();

-- A card payout's row carries its number sealed (0009), or names a card payee of the
-- book, whose seal the signer opens (the trigger above holds that row to the payee).
CREATE OR REPLACE FUNCTION paydesk.request_row_matches_form() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE r paydesk.requests; amount numeric; number text;
BEGIN
    SELECT * INTO r FROM paydesk.requests q WHERE q.id OPERATOR(pg_catalog.=) NEW.request_id;
    BEGIN
        amount := (NEW.form OPERATOR(pg_catalog.->>) 'amount')::pg_catalog.numeric;
    EXCEPTION WHEN others THEN
        RAISE EXCEPTION 'row %: its form''s amount % is not a decimal', NEW.row_no, NEW.form OPERATOR(pg_catalog.->>) 'amount';
    END;
    IF amount IS DISTINCT FROM NEW.amount THEN
        RAISE EXCEPTION 'row %: its form sends % but the row says %', NEW.row_no, amount, NEW.amount;
    END IF;
    IF pg_catalog.upper(NEW.form OPERATOR(pg_catalog.->>) 'currency') IS DISTINCT FROM r.currency THEN
        RAISE EXCEPTION 'row %: its form sends % but the request is in %',
            NEW.row_no, NEW.form OPERATOR(pg_catalog.->>) 'currency', r.currency;
    END IF;
    number := coalesce(NEW.form OPERATOR(pg_catalog.->>) 'merOrderNo', NEW.form OPERATOR(pg_catalog.->>) 'reference');
    IF number IS DISTINCT FROM NEW.mer_order_no THEN
        RAISE EXCEPTION 'row %: its form sends number % but the row is %', NEW.row_no, number, NEW.mer_order_no;
    END IF;
    IF r.operation OPERATOR(pg_catalog.=) 'payout' THEN
        IF (NEW.form OPERATOR(pg_catalog.->>) 'kind') IS NOT DISTINCT FROM 'CLABE' THEN
            IF r.currency OPERATOR(pg_catalog.<>) 'MXN' THEN
                RAISE EXCEPTION 'row %: currency: a CLABE payout is in MXN (a CLABE is a Mexican account), not %',
                    NEW.row_no, r.currency;
            END IF;
        ELSIF (NEW.form OPERATOR(pg_catalog.->>) 'kind') IS NOT DISTINCT FROM 'CARD' THEN
            IF coalesce(NEW.form OPERATOR(pg_catalog.->>) 'cardNo', '') OPERATOR(pg_catalog.<>) ''
               OR (coalesce(NEW.form OPERATOR(pg_catalog.->>) 'sealedCardNo', '') OPERATOR(pg_catalog.=) ''
                   AND NOT NEW.form OPERATOR(pg_catalog.?) 'payeeId') THEN
                RAISE EXCEPTION 'row %: cardNo: a card number is sealed to the signers (sealedCardNo), never stored readable', NEW.row_no;
            END IF;
        ELSE
            RAISE EXCEPTION 'row %: kind: a team payout is a CLABE or a card payout, not %', NEW.row_no, NEW.form OPERATOR(pg_catalog.->>) 'kind';
        END IF;
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.request_row_matches_form() FROM PUBLIC;

-- The signer's desk looks a payee up by its id when it pays (the row names the id):
-- every column, the seal with it (a signer reads the table).

-- F8. Look-alike nicknames: a nickname mixing Latin letters with Cyrillic or Greek ones
-- is refused, and so is one that reads as a payee already in the book once the
-- look-alike letters (Cyrillic and Greek ones that print as Latin, 0 and 1) are read as
-- the letters they imitate. Adds are serialised, so two members adding look-alikes at
-- once do not both pass. (Payees added before stay; the check holds for new ones.)
CREATE FUNCTION paydesk.nickname_skeleton(nickname text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT pg_catalog.translate(pg_catalog.lower(pg_catalog.btrim(nickname)),
        'аеорсухіјѕԁӏһԛԝкмнвтгαοριυνκτχβεηζ01',
        'aeopcyxijsdlhqwkmhbtraopiuvktxbenzol')
$$;
REVOKE ALL ON FUNCTION paydesk.nickname_skeleton(text) FROM PUBLIC;

ALTER TABLE paydesk.beneficiaries ADD CONSTRAINT beneficiaries_one_script CHECK (
    NOT (nickname OPERATOR(pg_catalog.~) '[A-Za-z]'
         AND nickname OPERATOR(pg_catalog.~) '[\u0370-\u03ff\u0400-\u052f]')) NOT VALID;

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
    IF pg_catalog.btrim(add_beneficiary.nickname) OPERATOR(pg_catalog.~) '[A-Za-z]'
       AND pg_catalog.btrim(add_beneficiary.nickname) OPERATOR(pg_catalog.~) '[\u0370-\u03ff\u0400-\u052f]' THEN
        RAISE EXCEPTION 'nickname: % mixes Latin letters with Cyrillic or Greek ones (a look-alike of another name): use one script', add_beneficiary.nickname
            USING ERRCODE = 'check_violation';
    END IF;
    SELECT x.nickname INTO alike FROM paydesk.beneficiaries x
     WHERE x.mer_no OPERATOR(pg_catalog.=) add_beneficiary.merchant
       AND x.nickname_key OPERATOR(pg_catalog.<>) pg_catalog.lower(pg_catalog.btrim(add_beneficiary.nickname))
       AND paydesk.nickname_skeleton(x.nickname) OPERATOR(pg_catalog.=) paydesk.nickname_skeleton(add_beneficiary.nickname)
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'nickname: % reads like payee % already in the book: choose a nickname that does not', add_beneficiary.nickname, alike
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

-- F3's rest. The journal takes a request row's purpose only for an entry of the
-- request's own operation (a payout request's number journaled as a payin is not that
-- request's), from its live row only.
CREATE OR REPLACE FUNCTION paydesk.journal_purpose_of_request() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE f pg_catalog.jsonb; op text; same boolean;
BEGIN
    SELECT rr.form, q.operation INTO f, op
      FROM paydesk.request_rows rr JOIN paydesk.requests q ON q.id OPERATOR(pg_catalog.=) rr.request_id
     WHERE rr.mer_order_no OPERATOR(pg_catalog.=) NEW.mer_order_no AND rr.live;
    IF NOT FOUND THEN
        RETURN NEW;
    END IF;
    same := (op OPERATOR(pg_catalog.=) 'payout' AND NEW.operation OPERATOR(pg_catalog.=) ANY (ARRAY['v1.payout', 'v2.payout']))
         OR (op OPERATOR(pg_catalog.=) 'payin' AND NEW.operation OPERATOR(pg_catalog.=) ANY (ARRAY['v2.payment', 'v1.payment', 'v1.payment.vn_bank']))
         OR (op OPERATOR(pg_catalog.=) 'top_up' AND NEW.operation OPERATOR(pg_catalog.=) 'v2.card.topUp')
         OR (op OPERATOR(pg_catalog.=) 'withdraw' AND NEW.operation OPERATOR(pg_catalog.=) 'v1.card.withdraw');
    IF same THEN
        NEW.purpose := NULLIF(pg_catalog.btrim(f OPERATOR(pg_catalog.->) 'purpose' OPERATOR(pg_catalog.->>) 'text'), '');
        NEW.purpose_ref := NULLIF(pg_catalog.btrim(f OPERATOR(pg_catalog.->) 'purpose' OPERATOR(pg_catalog.->>) 'reference'), '');
    ELSE
        -- Another operation under a request's number: no purpose is taken from the
        -- request, and none the writer gives is kept as if it were the maker's.
        NEW.purpose := NULL;
        NEW.purpose_ref := NULL;
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.journal_purpose_of_request() FROM PUBLIC;

-- Item 1 (limits) at the maker's desk: what the database will count against the
-- session member's limit in a currency today, so the desk says "over the limit" before
-- submitting (the trigger of 0028 still decides). Invoker's rights: it reads what the
-- member may read.
CREATE FUNCTION paydesk.my_payout_limit(code text)
    RETURNS TABLE (per_payout numeric, per_day numeric, day_zone text, used_today numeric)
LANGUAGE sql STABLE SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT l.per_payout, l.per_day, l.day_zone,
           (SELECT coalesce(pg_catalog.sum(rr.amount), 0)
              FROM paydesk.request_rows rr JOIN paydesk.requests q ON q.id OPERATOR(pg_catalog.=) rr.request_id
             WHERE q.maker OPERATOR(pg_catalog.=) l.member
               AND q.operation OPERATOR(pg_catalog.=) 'payout'
               AND q.currency OPERATOR(pg_catalog.=) l.currency
               AND q.created_at OPERATOR(pg_catalog.>=)
                   (pg_catalog.date_trunc('day', pg_catalog.now() AT TIME ZONE l.day_zone) AT TIME ZONE l.day_zone)
               AND q.state OPERATOR(pg_catalog.<>) 'rejected'
               AND rr.status OPERATOR(pg_catalog.<>) ALL (ARRAY['rejected', 'failed']))
      FROM paydesk.member_limits l
     WHERE l.member OPERATOR(pg_catalog.=) session_user::pg_catalog.text
       AND l.currency OPERATOR(pg_catalog.=) pg_catalog.upper(pg_catalog.btrim(code))
$$;
REVOKE ALL ON FUNCTION paydesk.my_payout_limit(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.my_payout_limit(text) TO paydesk_maker;

-- Item 4. The signer's worker's heartbeat: a row per signer, written only through
-- `worker_beat` (by the signer themself, at the database's clock), read by every member
-- (the "signer's worker stopped" alert). `stopped_at`: the worker was stopped on
-- purpose (NULL while it runs).
CREATE TABLE paydesk.worker_beats (
    signer      text PRIMARY KEY,
    started_at  timestamptz NOT NULL,
    seen_at     timestamptz NOT NULL,
    stopped_at  timestamptz
);
ALTER TABLE paydesk.worker_beats ENABLE ROW LEVEL SECURITY;
CREATE POLICY worker_beats_read ON paydesk.worker_beats FOR SELECT USING (true);
REVOKE ALL ON paydesk.worker_beats FROM PUBLIC;
GRANT SELECT ON paydesk.worker_beats TO paydesk_viewer, paydesk_support, paydesk_maker,
    paydesk_approver, paydesk_signer, paydesk_admin;

CREATE FUNCTION paydesk.worker_beat(starting boolean, stopping boolean) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
BEGIN
    IF NOT pg_catalog.pg_has_role(session_user, 'paydesk_signer', 'MEMBER') THEN
        RAISE EXCEPTION 'only a signer''s worker beats' USING ERRCODE = '42501';
    END IF;
    INSERT INTO paydesk.worker_beats AS w (signer, started_at, seen_at, stopped_at)
    VALUES (session_user, pg_catalog.now(), pg_catalog.now(),
            CASE WHEN worker_beat.stopping THEN pg_catalog.now() END)
    ON CONFLICT (signer) DO UPDATE
       SET seen_at = pg_catalog.now(),
           started_at = CASE WHEN worker_beat.starting THEN pg_catalog.now() ELSE w.started_at END,
           stopped_at = CASE WHEN worker_beat.stopping THEN pg_catalog.now() END;
END $$;
REVOKE ALL ON FUNCTION paydesk.worker_beat(boolean, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.worker_beat(boolean, boolean) TO paydesk_signer;
