-- The line before an entry in its episode (search's episode context, the
-- write's context lines) is read under row-level security, whose
-- `namespace = ...` condition made the planner pick (namespace, episode)
-- and sort the whole episode for every candidate: a cost that grew with the
-- episode. With created_at in the same index the read is one backward
-- index step. It also serves everything the (namespace, episode) index did.
CREATE INDEX entries_episode_order ON entries (namespace, episode, created_at)
    WHERE episode IS NOT NULL;
DROP INDEX entries_episode;
