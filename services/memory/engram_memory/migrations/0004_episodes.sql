-- Episodes: a client session gets one automatically; episode_start/end nest
-- tasks inside it. Entries carry the id of the innermost open episode.
CREATE TABLE episodes (
    id          uuid PRIMARY KEY,
    namespace   text NOT NULL,
    parent_id   uuid REFERENCES episodes (id) ON DELETE SET NULL,
    session_id  text NOT NULL DEFAULT '',
    title       text NOT NULL,
    started_by  text NOT NULL,
    started_at  timestamptz NOT NULL DEFAULT now(),
    ended_at    timestamptz
);
CREATE INDEX episodes_open ON episodes (namespace, session_id, started_at DESC)
    WHERE ended_at IS NULL;
CREATE INDEX episodes_recent ON episodes (namespace, started_at DESC);

ALTER TABLE episodes ENABLE ROW LEVEL SECURITY;
ALTER TABLE episodes FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON episodes
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
