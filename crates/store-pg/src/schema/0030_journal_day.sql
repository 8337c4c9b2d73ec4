-- The day's payouts of a merchant by when they were sent (or written, never sent): what a
-- signer's payout sums against the profile's per-day limit in the transaction that writes
-- it, under the day's lock (review-money-r5 F1), read by an index, not the whole journal.
-- Only an index: no grant, no function, nothing a member can call.
CREATE INDEX journal_day ON paydesk.journal (mer_no, (COALESCE(sent_at, created_at)));
