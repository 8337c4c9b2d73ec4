-- As SQLite's migration 0009: when the team's cache first saw an order as it now moves
-- the balance (UTC millis), the only "when" a balance reconciliation can window on (the
-- gateway's list gives no time of settlement, release, refund or chargeback). Kept by a
-- trigger, so every writer (the sync's batch upsert, a copy, an order made here) keeps it.
ALTER TABLE paydesk.orders ADD COLUMN moved_at bigint;
UPDATE paydesk.orders SET moved_at = COALESCE(NULLIF(synced_at, 0), made_at, created_at);
CREATE INDEX orders_moved ON paydesk.orders (mer_no, currency, moved_at);

CREATE FUNCTION paydesk.orders_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        NEW.moved_at := COALESCE(NEW.moved_at, NULLIF(NEW.synced_at, 0), NEW.made_at, NEW.created_at);
    ELSIF NEW.state IS DISTINCT FROM OLD.state
        OR NEW.currency IS DISTINCT FROM OLD.currency
        OR NEW.source_amount IS DISTINCT FROM OLD.source_amount
        OR NEW.handling_fee IS DISTINCT FROM OLD.handling_fee
        OR NEW.transaction_fixed_fee IS DISTINCT FROM OLD.transaction_fixed_fee
        OR NEW.exception_handling_fee IS DISTINCT FROM OLD.exception_handling_fee
        OR NEW.rolling_reserve IS DISTINCT FROM OLD.rolling_reserve
        OR NEW.rolling_reserve_status IS DISTINCT FROM OLD.rolling_reserve_status
        OR NEW.settle IS DISTINCT FROM OLD.settle
        OR NEW.refund_amount IS DISTINCT FROM OLD.refund_amount THEN
        NEW.moved_at := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER orders_moved BEFORE INSERT OR UPDATE ON paydesk.orders
    FOR EACH ROW EXECUTE FUNCTION paydesk.orders_moved();
