-- The team's read model keeps what each review submission sent, file by file (name,
-- type code, suffix, media type, size, SHA-256; a JSON array), as the desk's SQLite
-- cache does (migration 0013): the bytes are never kept, their hash is.
ALTER TABLE paydesk.review_submissions ADD COLUMN evidence text NOT NULL DEFAULT '[]';
