-- Lifecycle: when an entry left the live set, reinforcement, links between
-- entries, tombstones of forgotten content, and "live as of" in one place.

ALTER TABLE entries ADD COLUMN retired_at timestamptz;
ALTER TABLE entries ADD COLUMN last_reinforced_at timestamptz;
ALTER TABLE entry_versions ADD COLUMN status text NOT NULL DEFAULT 'live';

-- What was live at world-agnostic system time t: written by then and not yet
-- retired by then. Deleted (forgotten) rows are gone and never come back.
CREATE FUNCTION live_entries_at(t timestamptz) RETURNS SETOF entries
    LANGUAGE sql STABLE SECURITY INVOKER AS $$
    SELECT * FROM entries
    WHERE created_at <= t
      AND status IN ('live', 'superseded', 'archived')
      AND (retired_at IS NULL OR retired_at > t)
$$;

CREATE TABLE entry_links (
    namespace  text NOT NULL,
    src        uuid NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
    dst        uuid NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
    kind       text NOT NULL CHECK (kind IN ('related', 'supersedes', 'contradicts')),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (src, dst, kind)
);
CREATE INDEX entry_links_dst ON entry_links (dst);

CREATE TABLE tombstones (
    id           uuid PRIMARY KEY,
    namespace    text NOT NULL,
    entry_id     uuid NOT NULL,           -- the forgotten entry (row is gone)
    content_hash text NOT NULL,           -- normalised-text sha256, to recognise it again
    excerpt      text NOT NULL,           -- the first 60 characters: what was forgotten
    reason       text NOT NULL,
    forgotten_by text NOT NULL,
    forgotten_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tombstones_hash ON tombstones (namespace, content_hash);

ALTER TABLE entry_links ENABLE ROW LEVEL SECURITY;
ALTER TABLE entry_links FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON entry_links
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));

ALTER TABLE tombstones ENABLE ROW LEVEL SECURITY;
ALTER TABLE tombstones FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON tombstones
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
