-- What each review submission sent, file by file: name, type code, suffix, media type,
-- size and SHA-256 (a JSON array). The bytes are never kept, their hash is.
ALTER TABLE review_submissions ADD COLUMN evidence TEXT NOT NULL DEFAULT '[]';
