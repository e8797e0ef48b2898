-- Cortex schema v8: near-identical lessons merged by a dream pass. The
-- merged lesson is retired with a pointer to the one that absorbed it.
ALTER TABLE lessons ADD COLUMN merged_into uuid;
-- The view's `*` was expanded when it was made: list the new column too.
CREATE OR REPLACE VIEW live_lessons WITH (security_invoker = true) AS
    SELECT * FROM lessons WHERE retired_at IS NULL;

-- A dream pass's lesson merges are journaled with its other writes.
ALTER TABLE journal DROP CONSTRAINT journal_tbl_check;
ALTER TABLE journal ADD CONSTRAINT journal_tbl_check
    CHECK (tbl IN ('facts', 'conflicts', 'tombstones', 'slots', 'entities', 'lessons'));
