-- Document chunks ingested while the embedder was unavailable wait here for
-- a vector, as entries do in embedding_queue (same sweep, same policies).
CREATE TABLE chunk_embedding_queue (
    chunk_id    uuid PRIMARY KEY REFERENCES document_chunks (id) ON DELETE CASCADE,
    namespace   text NOT NULL,
    enqueued_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chunk_embedding_queue_order ON chunk_embedding_queue (enqueued_at);

ALTER TABLE chunk_embedding_queue ENABLE ROW LEVEL SECURITY;
ALTER TABLE chunk_embedding_queue FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON chunk_embedding_queue
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
CREATE POLICY sweep ON chunk_embedding_queue
    USING (current_setting('engram.embedding_sweep', true) = 'on');

-- Chunks stored without a vector before this migration.
INSERT INTO chunk_embedding_queue (chunk_id, namespace)
    SELECT id, namespace FROM document_chunks WHERE embedding IS NULL;
