-- The verbatim source of documents whose text is extracted (PDF): `content`
-- holds the extracted text that is chunked; `original` the file as sent.
ALTER TABLE documents ADD COLUMN original bytea;
ALTER TABLE documents DROP CONSTRAINT documents_format_check;
ALTER TABLE documents ADD CONSTRAINT documents_format_check
    CHECK (format IN ('text', 'markdown', 'html', 'pdf'));
