-- The review queue pages open items by (created_at, key): each kind's open rows
-- in that order without scanning the settled ones.
CREATE INDEX conflicts_open_page ON conflicts (namespace, opened_at, id) WHERE status = 'open';
CREATE INDEX facts_parked_page ON facts (namespace, recorded_at, id)
    WHERE verdict = 'parked' AND retired_at IS NULL;
CREATE INDEX tags_proposed_page ON tags (namespace, created_at) WHERE status = 'proposed';
