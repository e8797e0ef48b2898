-- A pass may propose consolidating near-duplicate memory entries
-- (kind merge_entries): `entry_ids` are the live entries to replace, `src`
-- the one whose text the consolidated entry takes (read from memory when a
-- reviewer approves; no entry text is copied here).
ALTER TABLE proposals DROP CONSTRAINT proposals_kind_check;
ALTER TABLE proposals ADD CONSTRAINT proposals_kind_check
    CHECK (kind IN ('graph_link', 'merge_entity', 'merge_fact', 'merge_entries'));
ALTER TABLE proposals ADD COLUMN entry_ids text[] NOT NULL DEFAULT '{}';
CREATE INDEX proposals_entry_ids ON proposals USING gin (entry_ids);
