-- A merchant order number belongs to one live request row: a row whose request may
-- still be paid (waiting, approved, executing or done). A rejected request is never
-- executed (rejected only while waiting; a signer claims only approved requests; a
-- rejected request never moves again), so its rows' numbers are freed by the rejection
-- and a maker may request the corrected file again: its unchanged rows keep their
-- numbers. The database holds this under concurrency: the unique index over live rows
-- makes a second maker racing the same numbers wait for the first and fail when the
-- first commits, whoever they are.
--
-- The signer's shared journal keys what was sent by the same numbers. A freed number is
-- never in it through this team: a rejected request's rows never reached a signer (all
-- still 'waiting', which the freeing checks), so requesting the number again cannot meet
-- an earlier send. Numbers of requests that did reach a signer stay live for ever.

ALTER TABLE paydesk.request_rows ADD COLUMN live boolean NOT NULL DEFAULT true;

-- A row's number is freed only by its request's rejection, and never taken back; what
-- the row asks never changes, and its outcome is written only while it is executed.
CREATE OR REPLACE FUNCTION paydesk.row_moves() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk AS $$
BEGIN
    IF (NEW.request_id, NEW.row_no, NEW.mer_order_no, NEW.amount, NEW.form, NEW.beneficiary)
       IS DISTINCT FROM (OLD.request_id, OLD.row_no, OLD.mer_order_no, OLD.amount, OLD.form, OLD.beneficiary) THEN
        RAISE EXCEPTION 'what a request row asks never changes';
    END IF;
    IF NEW.live IS DISTINCT FROM OLD.live THEN
        IF NOT (OLD.live AND NOT NEW.live)
           OR (NEW.status, NEW.trade_no, NEW.message) IS DISTINCT FROM (OLD.status, OLD.trade_no, OLD.message)
           OR OLD.status <> 'waiting'
           OR NOT EXISTS (SELECT 1 FROM paydesk.requests WHERE id = OLD.request_id AND state = 'rejected') THEN
            RAISE EXCEPTION 'request % row %: a number is freed only by its request''s rejection, and never taken back',
                OLD.request_id, OLD.row_no;
        END IF;
        RETURN NEW;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM paydesk.requests WHERE id = OLD.request_id AND state = 'executing') THEN
        RAISE EXCEPTION 'a row''s outcome is written only while its request is executing';
    END IF;
    NEW.updated_at := now();
    RETURN NEW;
END $$;

-- Rows are made live, whatever the maker wrote.
CREATE OR REPLACE FUNCTION paydesk.request_row_new() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk AS $$
DECLARE r paydesk.requests;
BEGIN
    SELECT * INTO r FROM paydesk.requests WHERE id = NEW.request_id;
    IF r.maker IS DISTINCT FROM session_user::text OR r.created_at <> now() THEN
        RAISE EXCEPTION 'rows are added to a request only by its maker, in the transaction that makes it';
    END IF;
    NEW.status := 'waiting'; NEW.trade_no := NULL; NEW.message := NULL; NEW.updated_at := NULL;
    NEW.live := true;
    RETURN NEW;
END $$;

-- The rejection frees the request's numbers (in the rejecting transaction: a number is
-- free exactly when the rejection is committed).
CREATE FUNCTION paydesk.request_rejected() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM paydesk.request_rows WHERE request_id = NEW.id AND status <> 'waiting') THEN
        RAISE EXCEPTION 'request %: a row of it has an outcome, so its numbers stay taken', NEW.id;
    END IF;
    UPDATE paydesk.request_rows SET live = false WHERE request_id = NEW.id AND live;
    RETURN NULL;
END $$;
CREATE TRIGGER request_rejected AFTER UPDATE OF state ON paydesk.requests
    FOR EACH ROW WHEN (OLD.state = 'waiting' AND NEW.state = 'rejected')
    EXECUTE FUNCTION paydesk.request_rejected();

-- Requests rejected before this migration free their numbers too.
UPDATE paydesk.request_rows rr SET live = false
  FROM paydesk.requests q
 WHERE q.id = rr.request_id AND q.state = 'rejected' AND rr.status = 'waiting';

CREATE UNIQUE INDEX request_rows_live_number ON paydesk.request_rows (mer_order_no) WHERE live;
ALTER TABLE paydesk.request_rows DROP CONSTRAINT request_rows_mer_order_no_key;
CREATE INDEX request_rows_number ON paydesk.request_rows (mer_order_no);

GRANT SELECT (live) ON paydesk.request_rows TO paydesk_viewer, paydesk_maker,
    paydesk_approver, paydesk_admin;
