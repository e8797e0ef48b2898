-- Cortex schema v1: the fact table's load-bearing columns, guarded by RLS.
-- The conflict pipeline, tombstones, tags, world facts, lessons and graph
-- arrive with issue #4 as further forward-only migrations.
CREATE TABLE facts (
    id           uuid PRIMARY KEY,
    namespace    text NOT NULL,
    entity       text NOT NULL,
    attribute    text NOT NULL,
    value        text NOT NULL,
    kind         text NOT NULL CHECK (kind IN ('DECISION', 'RULE', 'STATE', 'PREFERENCE',
                                               'REFERENCE', 'RESIDUAL', 'EVENT')),
    verdict      text NOT NULL DEFAULT 'active'
                 CHECK (verdict IN ('active', 'superseded', 'withdrawn', 'parked', 'contested')),
    origin       text NOT NULL DEFAULT 'agent'
                 CHECK (origin IN ('user', 'action', 'agent', 'assistant')),
    confidence   real NOT NULL DEFAULT 1.0,
    evidence_quote text NOT NULL DEFAULT '',
    source_type  text NOT NULL DEFAULT '',
    source_ref   text NOT NULL DEFAULT '',
    captured_by  text NOT NULL DEFAULT '',
    writer_principal text NOT NULL,
    valid_from   timestamptz NOT NULL DEFAULT now(),
    valid_to     timestamptz,
    recorded_at  timestamptz NOT NULL DEFAULT now(),
    retired_at   timestamptz,
    embedding    vector(384),
    meta         jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX facts_slot ON facts (namespace, entity, attribute, verdict);

CREATE VIEW live_facts WITH (security_invoker = true) AS
    SELECT * FROM facts WHERE verdict IN ('active', 'contested') AND retired_at IS NULL;

ALTER TABLE facts ENABLE ROW LEVEL SECURITY;
ALTER TABLE facts FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON facts
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
