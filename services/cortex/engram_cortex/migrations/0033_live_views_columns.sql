-- Cortex schema: the live views carry the columns v10 added to their tables
-- (a view's `*` was expanded when the view was made, so live_world_facts
-- lacked retract_reason and retracted_by, live_lessons retire_reason and
-- retired_by).
CREATE OR REPLACE VIEW live_world_facts WITH (security_invoker = true) AS
    SELECT * FROM world_facts WHERE retired_at IS NULL;
CREATE OR REPLACE VIEW live_lessons WITH (security_invoker = true) AS
    SELECT * FROM lessons WHERE retired_at IS NULL;
