-- Dreamer schema v4: cortex events mark work for the next pass (an entity to
-- compare for near-duplicates; lessons to merge), and proposals may be
-- entity merges or fact merges (one entity's value under two attributes:
-- src/dst are the attributes, `entity` and `value` say which facts).
CREATE TABLE marks (
    namespace text NOT NULL,
    kind      text NOT NULL CHECK (kind IN ('entity', 'lessons')),
    key       text NOT NULL,
    event_id  uuid NOT NULL,
    at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    status    text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done')),
    run_id    uuid,
    PRIMARY KEY (namespace, kind, key)
);
CREATE INDEX marks_open ON marks (namespace, at) WHERE status = 'pending';

ALTER TABLE marks ENABLE ROW LEVEL SECURITY;
ALTER TABLE marks FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON marks
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
CREATE POLICY dream_scheduler ON marks FOR SELECT
    USING (current_setting('engram.dream_scheduler', true) = 'on');

ALTER TABLE proposals DROP CONSTRAINT proposals_kind_check;
ALTER TABLE proposals ADD CONSTRAINT proposals_kind_check
    CHECK (kind IN ('graph_link', 'merge_entity', 'merge_fact'));
ALTER TABLE proposals ADD COLUMN entity text NOT NULL DEFAULT '';
ALTER TABLE proposals ADD COLUMN value text NOT NULL DEFAULT '';
-- The memory entry a proposal's evidence quote came from: forgetting the
-- entry withdraws an open proposal and blanks a decided one's quote.
ALTER TABLE proposals ADD COLUMN source_ref text NOT NULL DEFAULT '';
CREATE INDEX proposals_source ON proposals (namespace, source_ref) WHERE source_ref <> '';
