-- Memory schema v1: entries, their versions, and the transactional outbox.
-- Every table carries namespace and is guarded by row-level security that
-- reads the per-transaction setting engram.namespace (FORCE: owners too).

CREATE TABLE entries (
    id               uuid PRIMARY KEY,
    namespace        text NOT NULL,
    text             text NOT NULL,
    text_hash        text NOT NULL,          -- sha256 of the normalised text
    source           text NOT NULL DEFAULT '',
    tags             text[] NOT NULL DEFAULT '{}',
    origin           text NOT NULL DEFAULT 'agent'
                     CHECK (origin IN ('user', 'agent', 'assistant', 'action', 'import')),
    episode          text,
    writer_principal text NOT NULL,
    client_id        text NOT NULL DEFAULT '',
    session_id       text NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now(),
    valid_from       timestamptz NOT NULL,
    embedding        vector(384),            -- NULL: embedding pending
    tsv              tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
    status           text NOT NULL DEFAULT 'live'
                     CHECK (status IN ('live', 'superseded', 'archived', 'deleted')),
    confirmations    int NOT NULL DEFAULT 0,
    supersedes       uuid REFERENCES entries (id) ON DELETE SET NULL,
    superseded_by    uuid REFERENCES entries (id) ON DELETE SET NULL,
    meta             jsonb NOT NULL DEFAULT '{}'
);

CREATE INDEX entries_ns_status_created ON entries (namespace, status, created_at DESC);
CREATE INDEX entries_ns_hash ON entries (namespace, text_hash);
CREATE INDEX entries_tsv ON entries USING gin (tsv);
CREATE INDEX entries_tags ON entries USING gin (tags);
CREATE INDEX entries_embedding_hnsw ON entries USING hnsw (embedding vector_cosine_ops);

-- The one definition of a live entry. security_invoker keeps RLS in force
-- for whoever queries the view (a plain view would run as its owner).
CREATE VIEW live_entries WITH (security_invoker = true) AS
    SELECT * FROM entries WHERE status = 'live';

CREATE TABLE entry_versions (
    id          bigserial PRIMARY KEY,
    namespace   text NOT NULL,
    entry_id    uuid NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
    version     int NOT NULL,
    text        text NOT NULL,
    changed_by  text NOT NULL,
    reason      text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (entry_id, version)
);

CREATE TABLE outbox (
    id           uuid PRIMARY KEY,           -- the event id (Nats-Msg-Id)
    seq          bigserial NOT NULL,
    namespace    text NOT NULL,
    subject      text NOT NULL,
    payload      bytea NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz
);
CREATE INDEX outbox_pending ON outbox (seq) WHERE published_at IS NULL;

ALTER TABLE entries ENABLE ROW LEVEL SECURITY;
ALTER TABLE entries FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON entries
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));

ALTER TABLE entry_versions ENABLE ROW LEVEL SECURITY;
ALTER TABLE entry_versions FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON entry_versions
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));

ALTER TABLE outbox ENABLE ROW LEVEL SECURITY;
ALTER TABLE outbox FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON outbox
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
-- The relay publishes every namespace's events; it may read and mark outbox
-- rows (only), and only inside a transaction that declares itself the relay.
CREATE POLICY relay ON outbox
    USING (current_setting('engram.outbox_relay', true) = 'on');
