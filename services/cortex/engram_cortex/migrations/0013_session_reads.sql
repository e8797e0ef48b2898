-- Which facts a session was served (fact_get, fact_search), so a later turn
-- can be told when one of them was superseded or contested. Bounded: a
-- session keeps its newest reads only (ENGRAM_SESSION_READS_MAX) and rows
-- older than ENGRAM_SESSION_READS_KEEP_S are dropped on the next record.
CREATE TABLE session_reads (
    namespace  text NOT NULL,
    session_id text NOT NULL,
    fact_id    uuid NOT NULL,
    read_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (namespace, session_id, fact_id)
);
CREATE INDEX session_reads_age ON session_reads (namespace, read_at);
CREATE INDEX session_reads_recent ON session_reads (namespace, session_id, read_at DESC);

ALTER TABLE session_reads ENABLE ROW LEVEL SECURITY;
ALTER TABLE session_reads FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON session_reads
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
