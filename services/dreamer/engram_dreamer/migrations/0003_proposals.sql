-- Dreamer schema v3: proposals for review (candidate graph links). A
-- rejected proposal stays as a tombstone: its signature is never proposed
-- again. Open proposals expire after 30 days.
CREATE TABLE proposals (
    namespace  text NOT NULL,
    id         uuid NOT NULL,
    signature  text NOT NULL,
    kind       text NOT NULL CHECK (kind IN ('graph_link')),
    status     text NOT NULL DEFAULT 'open'
               CHECK (status IN ('open', 'approved', 'rejected', 'expired')),
    src        text NOT NULL,
    relation   text NOT NULL,
    dst        text NOT NULL,
    evidence_quote text NOT NULL DEFAULT '',
    run_id     uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    expires_at timestamptz NOT NULL DEFAULT clock_timestamp() + interval '30 days',
    decided_by text,
    decided_at timestamptz,
    reasoning  text NOT NULL DEFAULT '',
    PRIMARY KEY (namespace, id),
    UNIQUE (namespace, signature)
);
ALTER TABLE runs ADD COLUMN proposals integer NOT NULL DEFAULT 0;

ALTER TABLE proposals ENABLE ROW LEVEL SECURITY;
ALTER TABLE proposals FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON proposals
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
