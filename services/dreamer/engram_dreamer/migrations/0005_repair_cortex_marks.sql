-- Dreamer schema v5: databases built while 0004 had an earlier text (its
-- superseded checksums in migrations.lock) lack fact-merge proposals and the
-- evidence's source entry; this adds what the current 0004 builds. On a
-- database built from the current 0004 it changes nothing.
ALTER TABLE proposals DROP CONSTRAINT proposals_kind_check;
ALTER TABLE proposals ADD CONSTRAINT proposals_kind_check
    CHECK (kind IN ('graph_link', 'merge_entity', 'merge_fact'));
ALTER TABLE proposals ADD COLUMN IF NOT EXISTS entity text NOT NULL DEFAULT '';
ALTER TABLE proposals ADD COLUMN IF NOT EXISTS value text NOT NULL DEFAULT '';
ALTER TABLE proposals ADD COLUMN IF NOT EXISTS source_ref text NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS proposals_source ON proposals (namespace, source_ref)
    WHERE source_ref <> '';
