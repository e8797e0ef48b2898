-- Entries stored while the embedder was unavailable wait here for a vector.
-- The re-embed sweep lists this queue across namespaces (policy "sweep");
-- it reads and updates the entries themselves inside tenant transactions.
CREATE TABLE embedding_queue (
    entry_id    uuid PRIMARY KEY REFERENCES entries (id) ON DELETE CASCADE,
    namespace   text NOT NULL,
    enqueued_at timestamptz NOT NULL DEFAULT now(),
    attempts    int NOT NULL DEFAULT 0
);
CREATE INDEX embedding_queue_order ON embedding_queue (enqueued_at);

ALTER TABLE embedding_queue ENABLE ROW LEVEL SECURITY;
ALTER TABLE embedding_queue FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON embedding_queue
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
CREATE POLICY sweep ON embedding_queue
    USING (current_setting('engram.embedding_sweep', true) = 'on');
