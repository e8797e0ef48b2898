-- Context vectors are filled after the write is acknowledged: a store
-- encodes the entry alone and queues its context vector here (the lines it
-- answers are already named by context_of / context_of_prior). Until the
-- fill, the row ranks by its own vector, as rows without a context do.
CREATE TABLE context_vector_queue (
    entry_id    uuid PRIMARY KEY REFERENCES entries (id) ON DELETE CASCADE,
    namespace   text NOT NULL,
    enqueued_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX context_vector_queue_order ON context_vector_queue (enqueued_at);

ALTER TABLE context_vector_queue ENABLE ROW LEVEL SECURITY;
ALTER TABLE context_vector_queue FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON context_vector_queue
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
CREATE POLICY sweep ON context_vector_queue
    USING (current_setting('engram.embedding_sweep', true) = 'on');
