-- Forgotten documents: the row, its chunks, vectors and original file are
-- deleted; only this stays, with a keyed digest of the content (never an
-- excerpt), so ingesting the same content again can be recognised.
CREATE TABLE document_tombstones (
    id             uuid PRIMARY KEY,
    namespace      text NOT NULL,
    document_id    uuid NOT NULL,          -- the forgotten document (row is gone)
    content_hmac   text NOT NULL,
    reason         text NOT NULL,
    forgotten_by   text NOT NULL,
    forgotten_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX document_tombstones_hmac ON document_tombstones (namespace, content_hmac);

ALTER TABLE document_tombstones ENABLE ROW LEVEL SECURITY;
ALTER TABLE document_tombstones FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON document_tombstones
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
