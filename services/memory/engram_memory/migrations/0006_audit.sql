-- Memory schema v6: an append-only, hash-chained audit of every mutation
-- (engram_kit.audit). It records content hashes, never the text itself, so
-- a forgotten entry's words do not outlive it here.
CREATE TABLE audit (
    namespace  text NOT NULL,
    id         bigserial,
    at         timestamptz NOT NULL DEFAULT clock_timestamp(),
    principal  text NOT NULL,
    action     text NOT NULL,
    subject    text NOT NULL DEFAULT '',
    detail     jsonb NOT NULL DEFAULT '{}'::jsonb,
    prev_hash  text NOT NULL DEFAULT '',
    hash       text NOT NULL DEFAULT '',
    PRIMARY KEY (namespace, id)
);
CREATE INDEX audit_chain_tail ON audit (namespace, id DESC) WHERE hash <> '';

ALTER TABLE audit ENABLE ROW LEVEL SECURITY;
ALTER TABLE audit FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON audit
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
