-- Dreamer schema v2: the entries waiting for a pass, the runs (journal of
-- every pass), the facts each run wrote, and quarantined entries.
CREATE TABLE pending_entries (
    namespace  text NOT NULL,
    entry_id   uuid NOT NULL,
    event_id   uuid NOT NULL,
    stored_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    status     text NOT NULL DEFAULT 'pending'
               CHECK (status IN ('pending', 'consolidated', 'skipped', 'quarantined',
                                 'forgotten')),
    run_id     uuid,
    PRIMARY KEY (namespace, entry_id)
);
CREATE INDEX pending_entries_open ON pending_entries (namespace, stored_at)
    WHERE status = 'pending';

CREATE TABLE runs (
    namespace   text NOT NULL,
    id          uuid NOT NULL,
    trigger     text NOT NULL CHECK (trigger IN ('manual', 'backlog', 'idle', 'schedule')),
    extractor   text NOT NULL,
    model       text NOT NULL DEFAULT '',
    status      text NOT NULL DEFAULT 'running'
                CHECK (status IN ('running', 'committed', 'failed', 'aborted', 'rolled_back')),
    started_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at timestamptz,
    entries     integer NOT NULL DEFAULT 0,
    candidates  integer NOT NULL DEFAULT 0,
    facts_written integer NOT NULL DEFAULT 0,
    dropped_unanchored integer NOT NULL DEFAULT 0,
    quarantined integer NOT NULL DEFAULT 0,
    errors      integer NOT NULL DEFAULT 0,
    counts      jsonb NOT NULL DEFAULT '{}'::jsonb,
    error_detail text NOT NULL DEFAULT '',
    inputs      uuid[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (namespace, id)
);
CREATE INDEX runs_recent ON runs (namespace, started_at DESC);

CREATE TABLE run_facts (
    namespace text NOT NULL,
    run_id    uuid NOT NULL,
    fact_id   uuid NOT NULL,
    entry_id  uuid NOT NULL,
    action    text NOT NULL,
    kind      text NOT NULL,
    PRIMARY KEY (namespace, run_id, fact_id, entry_id)
);

CREATE TABLE quarantine (
    namespace text NOT NULL,
    entry_id  uuid NOT NULL,
    run_id    uuid NOT NULL,
    reason    text NOT NULL,
    at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (namespace, entry_id, run_id)
);

DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['pending_entries', 'runs', 'run_facts', 'quarantine']
    LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format($p$CREATE POLICY tenant ON %I
            USING (namespace = current_setting('engram.namespace', true))
            WITH CHECK (namespace = current_setting('engram.namespace', true))$p$, t);
    END LOOP;
END $$;
-- The scheduler finds namespaces with pending entries (this table only).
CREATE POLICY dream_scheduler ON pending_entries FOR SELECT
    USING (current_setting('engram.dream_scheduler', true) = 'on');
