-- Issue 32: the balance-moving columns on one clock. 0005's trigger set `moved_at` of an
-- order whose balance fields changed to the server's clock (`clock_timestamp()`), while
-- an order's first `moved_at` and SQLite's every `moved_at` were the sync's own time: a
-- team's reconciliation windowed on two clocks. Now an update that states when it read
-- the order (the sync's writer sets `synced_at` to the engine's clock) moves it at that
-- time; only a writer that states none (not the desk's) falls back to the server's.
-- The columns are `paydesk_model::orders::BALANCE_FIELDS`, in its order (the unit test
-- `store::dialect::tests::the_postgres_trigger_moves_on_the_balance_fields` reads this
-- file and fails when they part).
--
-- Hostile callers: this is a trigger function, run with the writer's own rights (no
-- SECURITY DEFINER), on a table only a signer (and the owner) may write. A signer may
-- already write `moved_at` itself (0013's column grants), so taking its stated time
-- gives nobody a new power; the stated time is still taken only within bounds (not
-- before the row's previous read, not more than a day past the server's clock), so a
-- careless writer cannot move an order into the far future. The function's
-- search_path is pinned, so no member's object can stand in for an operator in it.
CREATE OR REPLACE FUNCTION paydesk.orders_moved() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, paydesk, pg_temp AS $$
DECLARE server_now bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
BEGIN
    IF TG_OP = 'INSERT' THEN
        NEW.moved_at := COALESCE(NEW.moved_at, NULLIF(NEW.synced_at, 0), NEW.made_at, NEW.created_at);
    ELSIF (NEW.state, NEW.currency, NEW.source_amount, NEW.handling_fee, NEW.transaction_fixed_fee, NEW.exception_handling_fee, NEW.rolling_reserve, NEW.rolling_reserve_status, NEW.settle, NEW.refund_amount)
        IS DISTINCT FROM
        (OLD.state, OLD.currency, OLD.source_amount, OLD.handling_fee, OLD.transaction_fixed_fee, OLD.exception_handling_fee, OLD.rolling_reserve, OLD.rolling_reserve_status, OLD.settle, OLD.refund_amount) THEN
        NEW.moved_at := CASE
            WHEN NEW.synced_at IS DISTINCT FROM OLD.synced_at
             AND NEW.synced_at OPERATOR(pg_catalog.>) 0
             AND NEW.synced_at OPERATOR(pg_catalog.>=) COALESCE(OLD.synced_at, 0)
             AND NEW.synced_at OPERATOR(pg_catalog.<=) (server_now OPERATOR(pg_catalog.+) 86400000)
            THEN NEW.synced_at
            ELSE server_now
        END;
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.orders_moved() FROM PUBLIC;
