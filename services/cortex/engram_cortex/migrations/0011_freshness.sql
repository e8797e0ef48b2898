-- Cortex schema v11: freshness. A confirm or fact_verify stamps
-- last_verified_at (NULL: never verified since the write; the stale label
-- then counts from valid_from, as before). Nothing is backfilled: when a fact
-- was last confirmed was not recorded.
ALTER TABLE facts ADD COLUMN last_verified_at timestamptz;
-- The view's `*` was expanded when it was made: list the new column too.
CREATE OR REPLACE VIEW live_facts WITH (security_invoker = true) AS
    SELECT * FROM facts
    WHERE verdict IN ('active', 'contested', 'parked') AND retired_at IS NULL;

-- Memory entries cited as evidence (source_type memory_entry, source_ref the
-- entry id) that a later entry superseded or contradicted. Written from
-- memory's events (the dreamer relays them); a fact whose evidence changed
-- after its last verification is served with re_verify. Empty at upgrade:
-- changes made before it were not recorded here.
CREATE TABLE evidence_changes (
    namespace  text NOT NULL,
    source_ref text NOT NULL,
    change     text NOT NULL CHECK (change IN ('superseded', 'contested')),
    by_ref     text NOT NULL DEFAULT '',
    changed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (namespace, source_ref)
);

ALTER TABLE evidence_changes ENABLE ROW LEVEL SECURITY;
ALTER TABLE evidence_changes FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON evidence_changes
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
