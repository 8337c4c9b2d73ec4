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
