-- An entry the gateway answered "success" for without a usable trade number: its outcome
-- is unknown, but it must never be sent again because the gateway's list does not show it.
ALTER TABLE journal ADD COLUMN answered_ok INTEGER NOT NULL DEFAULT 0;
