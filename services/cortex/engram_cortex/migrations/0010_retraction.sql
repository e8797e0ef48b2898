-- Cortex schema v10: world facts retracted and lessons retired by hand,
-- reversibly. The row stays (retired_at set) with why and by whom; a restore
-- clears them. A world fact replaced by a newer citation has superseded_by
-- instead, and a merged lesson merged_into: neither is restored this way.
ALTER TABLE world_facts ADD COLUMN retract_reason text, ADD COLUMN retracted_by text;
ALTER TABLE lessons ADD COLUMN retire_reason text, ADD COLUMN retired_by text;
