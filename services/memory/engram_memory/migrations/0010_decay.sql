-- Decay and rescue. An entry nobody has used (served by get or search,
-- reinforced) for long enough is archived by a dream pass: it leaves the
-- default search pool but is never deleted. A rescue brings it back and
-- holds against every later pass. `archived_by` names the pass (its batch)
-- so a rollback restores exactly what that pass archived.
ALTER TABLE entries ADD COLUMN last_used_at timestamptz;
ALTER TABLE entries ADD COLUMN archived_by text;
ALTER TABLE entries ADD COLUMN rescued_at timestamptz;
ALTER TABLE entries ADD COLUMN rescued_by text;
ALTER TABLE entries ADD COLUMN rescue_reason text NOT NULL DEFAULT '';
CREATE INDEX entries_archived_by ON entries (namespace, archived_by) WHERE archived_by IS NOT NULL;

-- The view's `*` was expanded when it was made: list the new columns too.
CREATE OR REPLACE VIEW live_entries WITH (security_invoker = true) AS
    SELECT * FROM entries WHERE status = 'live';
