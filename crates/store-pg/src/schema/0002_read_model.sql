-- The team's read model: the cache of what the gateway says (orders, their state
-- history, refunds and chargebacks, balances), the sync's progress, and what the team's
-- desks did (card operations, review submissions, notifications received), shared by
-- every desk of the team instead of one SQLite file per desk. The same columns as the
-- desk's SQLite cache (crates/core/migrations), keyed by the team's merchant (`mer_no`).
-- Amounts are `numeric` (which keeps the scale it was given, so "10.00" reads back as
-- "10.00", as the SQLite cache's decimal strings do); `amount_e4` is the amount times
-- 10^4 as an exact integer, for sorting and range filters. Times are UTC millis.
--
-- Only the signer's desk (or `paydesk team worker`) writes the cache: it holds the
-- merchant key and runs the sync. Every role reads it. Saved filters are each member's
-- own, held by row-level security.

-- Fragment search on order and trade numbers (a trusted extension: the database's
-- owner may create it).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE paydesk.orders (
    id                      bigserial PRIMARY KEY,
    mer_no                  bigint NOT NULL,
    trade_no                text COLLATE "C" NOT NULL,
    mer_order_no            text COLLATE "C" NOT NULL,
    state                   bigint NOT NULL,
    method                  text NOT NULL DEFAULT '',
    currency                text COLLATE "C" NOT NULL,
    source_amount           numeric NOT NULL,
    amount_e4               bigint NOT NULL,
    handling_fee            numeric,
    receive_amount          numeric,
    settle_amount           numeric,
    rolling_reserve         numeric,
    transaction_fixed_fee   numeric,
    exception_handling_fee  numeric,
    refund_amount           numeric,
    settlement_currency     text NOT NULL DEFAULT '',
    refund_currency         text NOT NULL DEFAULT '',
    rolling_reserve_status  bigint,
    settle                  bigint,
    refusal_pay_reason      text NOT NULL DEFAULT '',
    message                 text NOT NULL DEFAULT '',
    -- Start of the list window the order was found in, or when this team made it.
    created_at              bigint NOT NULL,
    -- 0: made by the team, not yet shown by a list.
    synced_at               bigint NOT NULL,
    signature_verified      boolean NOT NULL DEFAULT false,
    kind                    text NOT NULL DEFAULT '' CHECK (kind IN ('', 'payin', 'payout', 'topUp', 'withdraw')),
    made_at                 bigint,
    UNIQUE (mer_no, trade_no)
) WITH (fillfactor = 90);
-- As on SQLite: each common sort has an index ending in `id`, the tie-breaker, so a
-- filtered, sorted page is read off an index; every index costs sync speed.
CREATE INDEX orders_created ON paydesk.orders (mer_no, created_at, id);
CREATE INDEX orders_state_currency_created ON paydesk.orders (mer_no, state, currency, created_at, id);
CREATE INDEX orders_amount ON paydesk.orders (mer_no, amount_e4, id);
CREATE INDEX orders_kind ON paydesk.orders (mer_no, kind, created_at, id);
-- Fragment search (ILIKE '%fragment%') and lookups by number, without a table scan.
CREATE INDEX orders_trade_no_trgm ON paydesk.orders USING gin (trade_no gin_trgm_ops);
CREATE INDEX orders_mer_order_no_trgm ON paydesk.orders USING gin (mer_order_no gin_trgm_ops);

CREATE TABLE paydesk.order_history (
    id        bigserial PRIMARY KEY,
    mer_no    bigint NOT NULL,
    trade_no  text COLLATE "C" NOT NULL,
    state     bigint NOT NULL,
    seen_at   bigint NOT NULL,
    source    text NOT NULL
);
CREATE INDEX order_history_trade ON paydesk.order_history (mer_no, trade_no, seen_at, id);

CREATE TABLE paydesk.refunds (
    mer_no          bigint NOT NULL,
    trade_no        text COLLATE "C" NOT NULL,
    refund_no       text COLLATE "C" NOT NULL,
    state           text NOT NULL,
    refund_amount   numeric,
    refund_currency text NOT NULL DEFAULT '',
    trade_fee       numeric,
    settle          bigint,
    receive_amount  numeric,
    fetched_at      bigint NOT NULL,
    PRIMARY KEY (mer_no, trade_no, refund_no)
);

CREATE TABLE paydesk.chargebacks (
    mer_no                     bigint NOT NULL,
    trade_no                   text COLLATE "C" NOT NULL,
    chargeback_amount          numeric,
    chargeback_currency        text NOT NULL DEFAULT '',
    actual_chargeback_amount   numeric,
    actual_chargeback_currency text NOT NULL DEFAULT '',
    status                     text NOT NULL DEFAULT '',
    fetched_at                 bigint NOT NULL,
    PRIMARY KEY (mer_no, trade_no)
);

CREATE TABLE paydesk.balance_snapshots (
    id                 bigserial PRIMARY KEY,
    mer_no             bigint NOT NULL,
    currency           text COLLATE "C" NOT NULL,
    balance            numeric NOT NULL,
    un_checked_balance numeric NOT NULL,
    total_balance      numeric NOT NULL,
    taken_at           bigint NOT NULL
);
CREATE INDEX balance_snapshots_currency ON paydesk.balance_snapshots (mer_no, currency, taken_at, id);

CREATE TABLE paydesk.card_operations (
    id          bigserial PRIMARY KEY,
    mer_no      bigint NOT NULL,
    journal_id  bigint,
    kind        text NOT NULL,
    -- Masked (first 6, last 4), as everywhere a card number is kept.
    card        text NOT NULL,
    amount      numeric NOT NULL,
    currency    text NOT NULL,
    fee         numeric,
    trade_no    text,
    outcome     text NOT NULL,
    at          bigint NOT NULL
);
CREATE INDEX card_operations_mer ON paydesk.card_operations (mer_no, id);

CREATE TABLE paydesk.review_submissions (
    id          bigserial PRIMARY KEY,
    mer_no      bigint NOT NULL,
    journal_id  bigint,
    trade_no    text NOT NULL,
    info_count  bigint NOT NULL,
    files       text NOT NULL,
    outcome     text NOT NULL,
    at          bigint NOT NULL,
    reference   text NOT NULL DEFAULT '',
    request     text NOT NULL DEFAULT '{}'
);
CREATE INDEX review_submissions_reference ON paydesk.review_submissions (mer_no, reference);
CREATE INDEX review_submissions_at ON paydesk.review_submissions (mer_no, at, id);

-- The sync's progress is the merchant's, whichever desk read it: a window one desk
-- read is not read again by another, and every member sees when the team last synced.
-- `profile` is the profile name of the desk that last wrote the row, for information.
CREATE TABLE paydesk.sync_state (
    mer_no         bigint NOT NULL,
    window_start   bigint NOT NULL,
    profile        text NOT NULL,
    window_end     bigint NOT NULL,
    pages_done     bigint NOT NULL DEFAULT 0,
    total_pages    bigint,
    complete       boolean NOT NULL DEFAULT false,
    updated_at     bigint NOT NULL,
    error          text,
    PRIMARY KEY (mer_no, window_start)
);

CREATE TABLE paydesk.notifications (
    id            bigserial PRIMARY KEY,
    mer_no        bigint NOT NULL,
    received_at   bigint NOT NULL,
    kind          text NOT NULL,
    trade_no      text NOT NULL DEFAULT '',
    body          text NOT NULL,
    signature_ok  boolean NOT NULL
);
CREATE INDEX notifications_trade ON paydesk.notifications (mer_no, trade_no, id);

-- Each member's saved filter sets: `owner` is the database user who saved it, and
-- row-level security shows and lets change only one's own (the statements say so too,
-- for the table's owner, whom row-level security does not hold).
CREATE TABLE paydesk.saved_filters (
    mer_no      bigint NOT NULL,
    owner       text NOT NULL DEFAULT current_user,
    name        text COLLATE "C" NOT NULL,
    filter      text NOT NULL,
    created_at  bigint NOT NULL,
    PRIMARY KEY (mer_no, owner, name)
);
ALTER TABLE paydesk.saved_filters ENABLE ROW LEVEL SECURITY;
CREATE POLICY saved_filters_own ON paydesk.saved_filters
    USING (owner = current_user) WITH CHECK (owner = current_user);

-- Every role reads the read model.
GRANT SELECT ON paydesk.orders, paydesk.order_history, paydesk.refunds, paydesk.chargebacks,
    paydesk.balance_snapshots, paydesk.card_operations, paydesk.review_submissions,
    paydesk.sync_state, paydesk.notifications
    TO paydesk_viewer, paydesk_support, paydesk_maker, paydesk_approver, paydesk_signer,
    paydesk_admin;
-- Only a signer writes it.
GRANT INSERT, UPDATE ON paydesk.orders, paydesk.order_history, paydesk.refunds,
    paydesk.chargebacks, paydesk.balance_snapshots, paydesk.card_operations,
    paydesk.review_submissions, paydesk.sync_state, paydesk.notifications TO paydesk_signer;
GRANT DELETE ON paydesk.sync_state TO paydesk_signer;
GRANT USAGE ON SEQUENCE paydesk.orders_id_seq, paydesk.order_history_id_seq,
    paydesk.balance_snapshots_id_seq, paydesk.card_operations_id_seq,
    paydesk.review_submissions_id_seq, paydesk.notifications_id_seq TO paydesk_signer;
-- Everyone keeps their own saved filters.
GRANT SELECT, INSERT, UPDATE, DELETE ON paydesk.saved_filters
    TO paydesk_viewer, paydesk_support, paydesk_maker, paydesk_approver, paydesk_signer,
    paydesk_admin;
