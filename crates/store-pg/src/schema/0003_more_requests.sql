-- Requests for every operation a maker makes: payins and the cards' top-ups and
-- withdrawals besides payouts. And a request's form, which carries the beneficiary's
-- full account, is read by the signer who executes it only: every other member reads a
-- row's masked beneficiary, amount and outcome.

ALTER TABLE paydesk.requests DROP CONSTRAINT requests_operation_check;
ALTER TABLE paydesk.requests ADD CONSTRAINT requests_operation_check
    CHECK (operation IN ('payout', 'payin', 'top_up', 'withdraw'));

ALTER TABLE paydesk.rules DROP CONSTRAINT rules_operation_check;
ALTER TABLE paydesk.rules ADD CONSTRAINT rules_operation_check
    CHECK (operation IN ('payout', 'payin', 'top_up', 'withdraw', '*'));

-- Neither a card number nor a payer's tax id is ever kept in the team's database.
ALTER TABLE paydesk.request_rows ADD CONSTRAINT request_rows_no_tax_id
    CHECK (coalesce(form ->> 'socialSecurityNumber', '') = '');

REVOKE SELECT ON paydesk.request_rows FROM paydesk_viewer, paydesk_maker, paydesk_approver,
    paydesk_admin;
GRANT SELECT (request_id, row_no, mer_order_no, amount, beneficiary, status, trade_no, message)
    ON paydesk.request_rows TO paydesk_viewer, paydesk_maker, paydesk_approver, paydesk_admin;
