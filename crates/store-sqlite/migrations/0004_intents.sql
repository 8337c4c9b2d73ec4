-- One payout per intent. Each journal entry keeps the fingerprint of what it does
-- (operation, account, amount, currency, beneficiary, card, order), so a new order
-- number for an intent that is unresolved or was accepted lately is caught; the claim
-- of the process sending or looking it up (so two processes on one profile cannot race);
-- when its request last left, and how many lookups have not found it since (an order
-- the gateway's list does not show yet is "not found yet", not "not there").
ALTER TABLE journal ADD COLUMN fingerprint TEXT NOT NULL DEFAULT '';
ALTER TABLE journal ADD COLUMN claimed_by TEXT;
ALTER TABLE journal ADD COLUMN claimed_until INTEGER;
ALTER TABLE journal ADD COLUMN sent_at INTEGER;
ALTER TABLE journal ADD COLUMN lookups INTEGER NOT NULL DEFAULT 0;
-- Who resolved an outcome by hand, and why (withdrawals and review submissions, which
-- the gateway cannot be asked about).
ALTER TABLE journal ADD COLUMN resolution TEXT;
CREATE INDEX journal_fingerprint ON journal (profile, fingerprint, created_at);
CREATE INDEX journal_mer_order_no ON journal (profile, mer_order_no);
