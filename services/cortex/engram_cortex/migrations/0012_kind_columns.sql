-- Cortex schema v12: a DECISION carries its reopen trigger (when to revisit
-- it). NULL for every existing row: no earlier write said one.
ALTER TABLE facts ADD COLUMN reopen_trigger text;
CREATE OR REPLACE VIEW live_facts WITH (security_invoker = true) AS
    SELECT * FROM facts
    WHERE verdict IN ('active', 'contested', 'parked') AND retired_at IS NULL;
