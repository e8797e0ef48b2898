-- Documents: verbatim raw captures (the lossless floor), chunked for search.
CREATE TABLE documents (
    id           uuid PRIMARY KEY,
    namespace    text NOT NULL,
    source       text NOT NULL,
    title        text NOT NULL DEFAULT '',
    format       text NOT NULL CHECK (format IN ('text', 'markdown', 'html')),
    content      text NOT NULL,            -- verbatim, as ingested
    content_hash text NOT NULL,
    created_by   text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX documents_ns_hash ON documents (namespace, content_hash);

CREATE TABLE document_chunks (
    id          uuid PRIMARY KEY,
    namespace   text NOT NULL,
    document_id uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    ordinal     int NOT NULL,
    start_char  int NOT NULL,
    text        text NOT NULL,
    embedding   vector(384),
    tsv         tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
    UNIQUE (document_id, ordinal)
);
CREATE INDEX document_chunks_tsv ON document_chunks USING gin (tsv);
CREATE INDEX document_chunks_hnsw ON document_chunks USING hnsw (embedding vector_cosine_ops);

ALTER TABLE documents ENABLE ROW LEVEL SECURITY;
ALTER TABLE documents FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON documents
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));

ALTER TABLE document_chunks ENABLE ROW LEVEL SECURITY;
ALTER TABLE document_chunks FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON document_chunks
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
