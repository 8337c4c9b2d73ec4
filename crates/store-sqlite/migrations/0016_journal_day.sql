-- The day's payouts by when they were sent (or written, never sent), per profile: what a
-- payout's per-day limit sums in the journal's write transaction, right before the payout
-- is written (review-money-r5 F1), read by an index, not the whole journal.
CREATE INDEX journal_day ON journal (profile, COALESCE(sent_at, created_at));
