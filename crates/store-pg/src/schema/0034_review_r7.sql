-- What the sixth hostile SQL review found besides F5 (notes: review-sql-r6; 0033 has F5),
-- each attacked as the member who would use it with plain SQL first
-- (tests/team/team_review_r7.rs). Every function here pins its search_path (pg_temp
-- last) and is revoked from PUBLIC; the definer ones take a lock bound.

-- F7 (0016). The day's payouts every signer's worker sums (journal.rs `begin_within`:
-- the entries of the payout operations, in a counted status, `COALESCE(sent_at,
-- created_at)` since the day began, their `request`'s amount and currency) are kept
-- as the sends wrote them. A signer holds UPDATE on `status` and `sent_at` for the
-- desk's own steps, and wrote `sent_at = 0` or `status = 'rejected'` on the day's
-- accepted payouts with psql: every worker then saw nothing used today. Now:
-- * what the sum reads and a signer never writes (merchant, operation, number, request,
--   written at) does not change, whoever asks;
-- * `sent_at` is never cleared and never moves earlier than it was, or than the entry
--   was written (a send again moves it later): an entry counted today stays counted
--   today;
-- * the status moves as the desk's journal moves it (paydesk_model `Status::
--   may_finish_as`, begin's pending -> sending, a lookup's unsettled -> unknown or
--   pending): an accepted entry is final, a rejected one only becomes accepted.
-- What stays open: an entry still in flight (pending, sending, unknown) may be marked
-- rejected, as a gateway's refusal is; that is at most the payouts in flight at once.
CREATE FUNCTION paydesk.journal_sends_kept() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, paydesk, pg_temp AS $$
BEGIN
    IF (NEW.mer_no, NEW.operation, NEW.mer_order_no, NEW.request, NEW.created_at)
       IS DISTINCT FROM (OLD.mer_no, OLD.operation, OLD.mer_order_no, OLD.request, OLD.created_at) THEN
        RAISE EXCEPTION 'journal: entry %''s merchant, operation, number, request and time written are kept as written', OLD.id
            USING ERRCODE = '42501';
    END IF;
    -- Never earlier than it was (or than the entry was written): a signer's desk whose
    -- clock is a little behind the one that wrote the entry still sends it again, at
    -- the entry's time; `sent_at = 0` or NULL leaves it where it was.
    NEW.sent_at := GREATEST(NEW.sent_at, OLD.sent_at,
        CASE WHEN NEW.sent_at IS NOT NULL OR OLD.sent_at IS NOT NULL THEN OLD.created_at END);
    IF NEW.status IS DISTINCT FROM OLD.status
       AND NOT (OLD.status OPERATOR(pg_catalog.=) ANY (ARRAY['pending', 'sending', 'unknown'])
                OR (OLD.status OPERATOR(pg_catalog.=) 'rejected' AND NEW.status OPERATOR(pg_catalog.=) 'accepted')) THEN
        RAISE EXCEPTION 'status: entry % is %, which does not become %: an accepted send is final, a refused one only turns out accepted',
            OLD.id, OLD.status, NEW.status
            USING ERRCODE = '42501';
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.journal_sends_kept() FROM PUBLIC;
CREATE TRIGGER journal_sends_kept BEFORE UPDATE ON paydesk.journal
    FOR EACH ROW EXECUTE FUNCTION paydesk.journal_sends_kept();

-- F4 (0029). With payee approval on ("require-approval on"), a maker paid an account
-- nobody approved by typing it in the row (a CLABE, or a sealed card number) instead of
-- naming a payee: the setting held the book, not the payouts. Now a payout row names a
-- payee of the book (`payeeId`, which request_row_payee holds to an approved payee with
-- its seal) whenever the team approves its payees. As 0029's otherwise.
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
        -- F4: with payee approval on, a payout goes to a payee of the book only (read
        -- without a lock: a request is made under the setting it finds, F6).
        IF NOT NEW.form OPERATOR(pg_catalog.?) 'payeeId'
           AND coalesce((SELECT t.payee_approval FROM paydesk.team t WHERE t.id OPERATOR(pg_catalog.=) 1), false) THEN
            RAISE EXCEPTION 'beneficiary: row %: the team approves its payees, so a payout goes to an approved payee of the book: choose one, or add this account to the book for approval', NEW.row_no
                USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.request_row_matches_form() FROM PUBLIC;

-- F12 (0024, 0031). The book's functions are granted to the roles that may use them
-- only: adding and removing a payee to makers and admins (the others were refused
-- inside; now they cannot call them at all). Approving is the approvers', signers' and
-- admins' already (0032).
REVOKE EXECUTE ON FUNCTION paydesk.add_beneficiary(bigint, text, text, text, text, text, text, text, text),
    paydesk.remove_beneficiary(bigint, text)
    FROM paydesk_viewer, paydesk_support, paydesk_approver, paydesk_signer;

-- F6 (0029, 0031). A maker's open transaction no longer holds what other members need:
-- * a request row naming a payee does not take the payee's row FOR SHARE (it held the
--   payee against removal until the maker's transaction ended; the signer's worker
--   checks the payee is there, approved and sealed alike when it pays, so the lock
--   protected nothing);
-- * adding a payee reads the team's payee approval without taking the team's row FOR
--   SHARE (an idle transaction after an add held the admin's turning approval on), and
--   reads it again after the insert: a payee added while approval was turned on waits
--   for approval too. Adds still go one at a time (the table's SHARE UPDATE EXCLUSIVE
--   lock), which no request, approval or removal waits for.
CREATE OR REPLACE FUNCTION paydesk.request_row_payee() RETURNS trigger
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
       AND x.mer_no OPERATOR(pg_catalog.=) (SELECT t.mer_no FROM paydesk.team t WHERE t.id OPERATOR(pg_catalog.=) 1);
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
    -- The setting as it is now, without holding the team's row (F6).
    SELECT t.payee_approval INTO needs FROM paydesk.team t
     WHERE t.mer_no OPERATOR(pg_catalog.=) add_beneficiary.merchant;
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
    -- Approval turned on since the setting was read (committed meanwhile): this payee
    -- waits for it too.
    IF NOT needs AND (SELECT t.payee_approval FROM paydesk.team t
                       WHERE t.mer_no OPERATOR(pg_catalog.=) add_beneficiary.merchant) THEN
        needs := true;
        UPDATE paydesk.beneficiaries SET needs_approval = true, approved_by = NULL, approved_at = NULL
         WHERE id OPERATOR(pg_catalog.=) new_id;
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
