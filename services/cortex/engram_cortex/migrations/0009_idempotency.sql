-- Cortex schema v9: a write that carries an idempotency key (gRPC metadata
-- x-engram-idempotency-key) takes effect once. The key is recorded in the
-- write's own transaction with the reply; a repeat of the same request gets that reply,
-- a different request under the same key is refused. Keys expire after 7 days.
CREATE TABLE idempotency (
    namespace text NOT NULL,
    key       text NOT NULL,
    method    text NOT NULL,
    digest    text NOT NULL,
    reply     jsonb NOT NULL,
    at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (namespace, key)
);
CREATE INDEX idempotency_at ON idempotency (namespace, at);

ALTER TABLE idempotency ENABLE ROW LEVEL SECURITY;
ALTER TABLE idempotency FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON idempotency
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
