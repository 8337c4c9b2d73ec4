-- A row is what its form will send: the form's amount, currency and number are the
-- row's and its request's, so what the approvers see (amount, currency, the masked
-- beneficiary) is what the signer sends. Without this, a maker writing plain SQL could
-- request 50 MXN and have the form say 500,000 (the signer checks it again).
CREATE FUNCTION paydesk.request_row_matches_form() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk AS $$
DECLARE r paydesk.requests; amount numeric; number text;
BEGIN
    SELECT * INTO r FROM paydesk.requests WHERE id = NEW.request_id;
    BEGIN
        amount := (NEW.form ->> 'amount')::numeric;
    EXCEPTION WHEN others THEN
        RAISE EXCEPTION 'row %: its form''s amount % is not a decimal', NEW.row_no, NEW.form ->> 'amount';
    END;
    IF amount IS DISTINCT FROM NEW.amount THEN
        RAISE EXCEPTION 'row %: its form sends % but the row says %', NEW.row_no, amount, NEW.amount;
    END IF;
    IF upper(NEW.form ->> 'currency') IS DISTINCT FROM r.currency THEN
        RAISE EXCEPTION 'row %: its form sends % but the request is in %',
            NEW.row_no, NEW.form ->> 'currency', r.currency;
    END IF;
    number := coalesce(NEW.form ->> 'merOrderNo', NEW.form ->> 'reference');
    IF number IS DISTINCT FROM NEW.mer_order_no THEN
        RAISE EXCEPTION 'row %: its form sends number % but the row is %', NEW.row_no, number, NEW.mer_order_no;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER request_row_matches_form BEFORE INSERT ON paydesk.request_rows
    FOR EACH ROW EXECUTE FUNCTION paydesk.request_row_matches_form();
