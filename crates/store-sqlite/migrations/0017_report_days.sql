-- Sums the reports are made of, kept per stretch of time (issue 34): a statement's groups
-- or a failure breakdown's groups of the orders dated in [start_ms, end_ms) (a day of a
-- zone, at most 26 hours), written the first time a report reads that stretch, read by
-- every later report instead of its orders. `what`: 0 a statement's groups, 1 the
-- failure breakdown's; `groups`: their counts and exact sums (JSON).
--
-- A stretch is only ever read while it is right: every write that changes an order's
-- date or a figure the sums read (insert, update, delete, its looked-up chargeback)
-- deletes, in the same transaction, each kept stretch that holds the order's old or new
-- date; the next report sums it again from its orders.
CREATE TABLE report_days (
    start_ms INTEGER NOT NULL,
    end_ms   INTEGER NOT NULL,
    what     INTEGER NOT NULL,
    groups   TEXT NOT NULL,
    PRIMARY KEY (start_ms, end_ms, what)
) WITHOUT ROWID;

-- 93,600,000 ms = 26 hours: no stretch is longer (the reader keeps none that is), so the
-- stretches holding a date are found in the primary key's range from 26 hours before it.
CREATE TRIGGER report_days_order_insert AFTER INSERT ON orders
BEGIN
    DELETE FROM report_days
    WHERE start_ms > NEW.created_at - 93600000 AND start_ms <= NEW.created_at
      AND end_ms > NEW.created_at;
END;

CREATE TRIGGER report_days_order_delete AFTER DELETE ON orders
BEGIN
    DELETE FROM report_days
    WHERE start_ms > OLD.created_at - 93600000 AND start_ms <= OLD.created_at
      AND end_ms > OLD.created_at;
END;

CREATE TRIGGER report_days_order_update AFTER UPDATE ON orders
WHEN OLD.created_at IS NOT NEW.created_at
  OR OLD.trade_no IS NOT NEW.trade_no
  OR OLD.state IS NOT NEW.state
  OR OLD.currency IS NOT NEW.currency
  OR OLD.kind IS NOT NEW.kind
  OR OLD.method IS NOT NEW.method
  OR OLD.settle IS NOT NEW.settle
  OR OLD.rolling_reserve_status IS NOT NEW.rolling_reserve_status
  OR OLD.source_amount IS NOT NEW.source_amount
  OR OLD.handling_fee IS NOT NEW.handling_fee
  OR OLD.transaction_fixed_fee IS NOT NEW.transaction_fixed_fee
  OR OLD.exception_handling_fee IS NOT NEW.exception_handling_fee
  OR OLD.rolling_reserve IS NOT NEW.rolling_reserve
  OR OLD.refund_amount IS NOT NEW.refund_amount
  OR OLD.settle_amount IS NOT NEW.settle_amount
  OR OLD.receive_amount IS NOT NEW.receive_amount
  OR OLD.refusal_pay_reason IS NOT NEW.refusal_pay_reason
  OR OLD.message IS NOT NEW.message
BEGIN
    DELETE FROM report_days
    WHERE (start_ms > OLD.created_at - 93600000 AND start_ms <= OLD.created_at
           AND end_ms > OLD.created_at)
       OR (start_ms > NEW.created_at - 93600000 AND start_ms <= NEW.created_at
           AND end_ms > NEW.created_at);
END;

-- A statement sums an order's looked-up chargeback amount in place of its own.
CREATE TRIGGER report_days_chargeback_insert AFTER INSERT ON chargebacks
BEGIN
    DELETE FROM report_days
    WHERE EXISTS (SELECT 1 FROM orders o WHERE o.trade_no = NEW.trade_no
                  AND report_days.start_ms > o.created_at - 93600000
                  AND report_days.start_ms <= o.created_at
                  AND report_days.end_ms > o.created_at);
END;

CREATE TRIGGER report_days_chargeback_delete AFTER DELETE ON chargebacks
BEGIN
    DELETE FROM report_days
    WHERE EXISTS (SELECT 1 FROM orders o WHERE o.trade_no = OLD.trade_no
                  AND report_days.start_ms > o.created_at - 93600000
                  AND report_days.start_ms <= o.created_at
                  AND report_days.end_ms > o.created_at);
END;

CREATE TRIGGER report_days_chargeback_update AFTER UPDATE ON chargebacks
WHEN OLD.trade_no IS NOT NEW.trade_no
  OR OLD.chargeback_amount IS NOT NEW.chargeback_amount
  OR OLD.actual_chargeback_amount IS NOT NEW.actual_chargeback_amount
BEGIN
    DELETE FROM report_days
    WHERE EXISTS (SELECT 1 FROM orders o WHERE o.trade_no IN (OLD.trade_no, NEW.trade_no)
                  AND report_days.start_ms > o.created_at - 93600000
                  AND report_days.start_ms <= o.created_at
                  AND report_days.end_ms > o.created_at);
END;
