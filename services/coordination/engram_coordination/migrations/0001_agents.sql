-- Coordination schema v1: agents on the board, guarded by RLS. Leases and
-- mail arrive with issue #7 as further forward-only migrations.
CREATE TABLE agents (
    namespace   text NOT NULL,
    id          text NOT NULL,             -- principal + client instance
    principal   text NOT NULL,
    project     text NOT NULL DEFAULT '',
    task        text NOT NULL DEFAULT '',
    status      text NOT NULL DEFAULT '',
    status_at   timestamptz NOT NULL DEFAULT now(),
    last_seen   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (namespace, id)
);

ALTER TABLE agents ENABLE ROW LEVEL SECURITY;
ALTER TABLE agents FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON agents
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
