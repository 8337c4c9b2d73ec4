-- Review submissions keep what is needed to send a queued one again: its reference
-- (the journal key), its information items and its files' paths (never their content).
ALTER TABLE review_submissions ADD COLUMN reference TEXT NOT NULL DEFAULT '';
ALTER TABLE review_submissions ADD COLUMN request TEXT NOT NULL DEFAULT '{}';
