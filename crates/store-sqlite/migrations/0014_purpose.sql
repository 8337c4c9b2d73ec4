-- Why money moved (issue 35): a journal entry's purpose and optional reference (a
-- ticket, an invoice number), written with the entry before its request leaves.
-- NULL: none was given (or the entry is older than purposes).
ALTER TABLE journal ADD COLUMN purpose TEXT;
ALTER TABLE journal ADD COLUMN purpose_ref TEXT;
