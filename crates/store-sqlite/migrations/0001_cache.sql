-- The cache of what the gateway says (orders, refunds, chargebacks, balances) and the
-- local records of what this desk did. Amounts are decimal strings; `amount_e4` is
-- the same amount times 10^4 as an exact integer, for sorting and range filters.

CREATE TABLE orders (
    id                      INTEGER PRIMARY KEY,
    trade_no                TEXT NOT NULL UNIQUE,
    mer_no                  INTEGER NOT NULL,
    mer_order_no            TEXT NOT NULL,
    state                   INTEGER NOT NULL,
    method                  TEXT NOT NULL DEFAULT '',
    currency                TEXT NOT NULL,
    source_amount           TEXT NOT NULL,
    amount_e4               INTEGER NOT NULL,
    handling_fee            TEXT,
    receive_amount          TEXT,
    settle_amount           TEXT,
    rolling_reserve         TEXT,
    transaction_fixed_fee   TEXT,
    exception_handling_fee  TEXT,
    refund_amount           TEXT,
    settlement_currency     TEXT NOT NULL DEFAULT '',
    refund_currency         TEXT NOT NULL DEFAULT '',
    rolling_reserve_status  INTEGER,
    settle                  INTEGER,
    refusal_pay_reason      TEXT NOT NULL DEFAULT '',
    message                 TEXT NOT NULL DEFAULT '',
    -- Start of the list window the order was found in (UTC millis): the order list
    -- carries no creation time, so this is its date at the sync's window precision.
    created_at              INTEGER NOT NULL,
    synced_at               INTEGER NOT NULL,
    signature_verified      INTEGER NOT NULL DEFAULT 0
);
-- The common sort orders have an index that ends in `id`, the tie-breaker, so a
-- filtered, sorted page is read off an index instead of sorted. Every index costs
-- sync speed, so there are only these: the date, state+currency+date (the usual
-- filter), and the amount. Order numbers are found through the search index.
CREATE INDEX orders_created ON orders (created_at, id);
CREATE INDEX orders_state_currency_created ON orders (state, currency, created_at, id);
CREATE INDEX orders_amount ON orders (amount_e4, id);

-- Fragment search on order and trade numbers without a table scan: a contentless
-- trigram index whose rowid is `orders.id` (both numbers never change).
CREATE VIRTUAL TABLE orders_fts USING fts5 (trade_no, mer_order_no, content = '', tokenize = 'trigram', columnsize = 0);
-- Merge the index's segments less eagerly: syncs insert in large batches.
INSERT INTO orders_fts (orders_fts, rank) VALUES ('automerge', 16);

CREATE TABLE order_history (
    trade_no   TEXT NOT NULL,
    state      INTEGER NOT NULL,
    seen_at    INTEGER NOT NULL,
    source     TEXT NOT NULL
);
CREATE INDEX order_history_trade ON order_history (trade_no, seen_at);

CREATE TABLE refunds (
    trade_no        TEXT NOT NULL,
    refund_no       TEXT NOT NULL,
    state           TEXT NOT NULL,
    refund_amount   TEXT,
    refund_currency TEXT NOT NULL DEFAULT '',
    trade_fee       TEXT,
    settle          INTEGER,
    receive_amount  TEXT,
    fetched_at      INTEGER NOT NULL,
    PRIMARY KEY (trade_no, refund_no)
);

CREATE TABLE chargebacks (
    trade_no                   TEXT PRIMARY KEY,
    chargeback_amount          TEXT,
    chargeback_currency        TEXT NOT NULL DEFAULT '',
    actual_chargeback_amount   TEXT,
    actual_chargeback_currency TEXT NOT NULL DEFAULT '',
    status                     TEXT NOT NULL DEFAULT '',
    fetched_at                 INTEGER NOT NULL
);

CREATE TABLE balance_snapshots (
    id                 INTEGER PRIMARY KEY,
    currency           TEXT NOT NULL,
    balance            TEXT NOT NULL,
    un_checked_balance TEXT NOT NULL,
    total_balance      TEXT NOT NULL,
    taken_at           INTEGER NOT NULL
);
CREATE INDEX balance_snapshots_currency ON balance_snapshots (currency, taken_at);

CREATE TABLE card_operations (
    id             INTEGER PRIMARY KEY,
    journal_id     INTEGER,
    kind           TEXT NOT NULL,
    card           TEXT NOT NULL,
    amount         TEXT NOT NULL,
    currency       TEXT NOT NULL,
    fee            TEXT,
    trade_no       TEXT,
    outcome        TEXT NOT NULL,
    at             INTEGER NOT NULL
);

CREATE TABLE review_submissions (
    id          INTEGER PRIMARY KEY,
    journal_id  INTEGER,
    trade_no    TEXT NOT NULL,
    info_count  INTEGER NOT NULL,
    files       TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    at          INTEGER NOT NULL
);

CREATE TABLE sync_state (
    profile        TEXT NOT NULL,
    window_start   INTEGER NOT NULL,
    window_end     INTEGER NOT NULL,
    pages_done     INTEGER NOT NULL DEFAULT 0,
    total_pages    INTEGER,
    complete       INTEGER NOT NULL DEFAULT 0,
    updated_at     INTEGER NOT NULL,
    error          TEXT,
    PRIMARY KEY (profile, window_start)
);

CREATE TABLE notifications (
    id            INTEGER PRIMARY KEY,
    received_at   INTEGER NOT NULL,
    kind          TEXT NOT NULL,
    trade_no      TEXT NOT NULL DEFAULT '',
    body          TEXT NOT NULL,
    signature_ok  INTEGER NOT NULL
);

-- Every operation, queries included. `hash` = SHA-256 over `prev_hash` and this row's
-- content, so an edited or deleted row breaks the chain.
CREATE TABLE audit_log (
    id          INTEGER PRIMARY KEY,
    at          INTEGER NOT NULL,
    profile     TEXT NOT NULL,
    operator    TEXT NOT NULL,
    operation   TEXT NOT NULL,
    identifiers TEXT NOT NULL,
    result      TEXT NOT NULL,
    latency_ms  INTEGER NOT NULL,
    prev_hash   TEXT NOT NULL,
    hash        TEXT NOT NULL
);

-- The chain's head, written with each row: a truncated tail shows too.
CREATE TABLE audit_head (
    one       INTEGER PRIMARY KEY CHECK (one = 1),
    last_id   INTEGER NOT NULL,
    last_hash TEXT NOT NULL,
    count     INTEGER NOT NULL
);

-- What this desk sent or is about to send. The intent is committed before the
-- request leaves; `mer_order_no` is fixed once. Card numbers only masked.
CREATE TABLE journal (
    id            INTEGER PRIMARY KEY,
    profile       TEXT NOT NULL,
    operation     TEXT NOT NULL,
    mer_order_no  TEXT NOT NULL,
    request       TEXT NOT NULL,
    summary       TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'accepted', 'rejected', 'unknown')),
    trade_no      TEXT,
    code          TEXT,
    message       TEXT,
    attempts      INTEGER NOT NULL DEFAULT 0,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    next_check_at INTEGER,
    UNIQUE (profile, operation, mer_order_no)
);
CREATE INDEX journal_status ON journal (status);
