-- The book of payees (issue 35): a nickname unique per book (compared in lower case),
-- the name, the account masked (first 6, last 4) and sealed under a key derived from
-- the profile's intent key in the keyring, the keyed digest that says whether an
-- account is in the book, the CLABE's bank and the country. No full account in clear.
CREATE TABLE beneficiaries (
    id              INTEGER PRIMARY KEY,
    nickname        TEXT NOT NULL,
    nickname_key    TEXT NOT NULL UNIQUE,
    kind            TEXT NOT NULL CHECK (kind IN ('clabe', 'card')),
    first_name      TEXT NOT NULL,
    last_name       TEXT NOT NULL,
    account_masked  TEXT NOT NULL,
    account_sealed  TEXT NOT NULL,
    account_digest  TEXT NOT NULL,
    bank            TEXT,
    country         TEXT NOT NULL,
    created_at      INTEGER NOT NULL
);
CREATE INDEX beneficiaries_by_digest ON beneficiaries (account_digest);
