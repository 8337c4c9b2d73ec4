-- When this desk first saw an order as it now moves the balance (UTC millis): set when
-- an order is first cached and whenever a sync finds its state, amount, fees, reserve,
-- reserve status, settlement or refunded amount changed. The gateway's list gives no
-- time of settlement, release, refund or chargeback, so this is the only "when" a
-- balance reconciliation can window on. Orders already cached take the time a sync last
-- read them (or when they were made here, or their day).
ALTER TABLE orders ADD COLUMN moved_at INTEGER;
UPDATE orders SET moved_at = COALESCE(NULLIF(synced_at, 0), made_at, created_at);
CREATE INDEX orders_moved ON orders (currency, moved_at);
