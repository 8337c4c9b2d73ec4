-- What the journal knows of an order and the gateway's list does not say: its kind
-- (payin, payout, topUp, withdraw; '' when not known) and when it was made (UTC millis;
-- NULL when the list is all that is known, and `created_at` is then only its day).
-- An order this desk makes is cached at once from the journal (`synced_at` 0 until a
-- list shows it). Additive: older desks read and write the table as before.
ALTER TABLE orders ADD COLUMN kind TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN made_at INTEGER;
CREATE INDEX orders_kind ON orders (kind, created_at, id);

-- Orders already cached that the journal made (the same trade and order numbers; the
-- first accepted entry if there are several): dated by the time the request left.
UPDATE orders
SET kind = CASE j.operation
        WHEN 'v2.payment' THEN 'payin'
        WHEN 'v1.payment' THEN 'payin'
        WHEN 'v1.payment.vn_bank' THEN 'payin'
        WHEN 'v2.payout' THEN 'payout'
        WHEN 'v1.payout' THEN 'payout'
        WHEN 'v2.card.topUp' THEN 'topUp'
        WHEN 'v1.card.withdraw' THEN 'withdraw'
        ELSE ''
    END,
    made_at = j.at,
    created_at = j.at
FROM (
    SELECT trade_no, mer_order_no, operation, COALESCE(sent_at, created_at) AS at, MIN(id)
    FROM journal
    WHERE status = 'accepted' AND trade_no IS NOT NULL
    GROUP BY trade_no, mer_order_no
) AS j
WHERE j.trade_no = orders.trade_no AND j.mer_order_no = orders.mer_order_no;
