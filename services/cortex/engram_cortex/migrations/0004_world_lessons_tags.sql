-- Cortex schema v4: cited world facts with decaying trust, recorded outcomes
-- and the lessons distilled from them, the tag registry, and fact tags.
CREATE TABLE world_facts (
    namespace    text NOT NULL,
    id           uuid NOT NULL,
    entity       text NOT NULL,
    attribute    text NOT NULL,
    value        text NOT NULL,
    norm_value   text NOT NULL,
    source_url   text NOT NULL CHECK (source_url ~ '^https?://'),
    source_quote text NOT NULL CHECK (length(source_quote) > 0),
    freshness    text NOT NULL CHECK (freshness IN ('volatile', 'seasonal', 'stable')),
    confidence   real NOT NULL CHECK (confidence > 0 AND confidence <= 1),
    writer_principal text NOT NULL,
    embedding    vector(384),
    recorded_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    checked_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    retired_at   timestamptz,
    superseded_by uuid,
    PRIMARY KEY (namespace, id)
);
CREATE INDEX world_slot ON world_facts (namespace, entity, attribute) WHERE retired_at IS NULL;
CREATE VIEW live_world_facts WITH (security_invoker = true) AS
    SELECT * FROM world_facts WHERE retired_at IS NULL;

CREATE TABLE outcomes (
    namespace  text NOT NULL,
    id         uuid NOT NULL,
    task       text NOT NULL,
    outcome    text NOT NULL CHECK (outcome IN ('success', 'failure', 'correction')),
    detail     text NOT NULL DEFAULT '',
    signature  text NOT NULL,             -- normalised task + outcome + detail
    used_ids   text[] NOT NULL DEFAULT '{}',
    writer_principal text NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (namespace, id)
);
CREATE INDEX outcomes_signature ON outcomes (namespace, signature);

CREATE TABLE lessons (
    namespace   text NOT NULL,
    id          uuid NOT NULL,
    signature   text NOT NULL,
    polarity    text NOT NULL CHECK (polarity IN ('do', 'avoid')),
    text        text NOT NULL,
    task        text NOT NULL,
    confidence  real NOT NULL,
    signals     integer NOT NULL,
    subject_fact_ids uuid[] NOT NULL DEFAULT '{}',
    distilled_by text NOT NULL,
    embedding   vector(384),
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    retired_at  timestamptz,
    PRIMARY KEY (namespace, id)
);
CREATE UNIQUE INDEX lessons_live_signature ON lessons (namespace, signature)
    WHERE retired_at IS NULL;
CREATE VIEW live_lessons WITH (security_invoker = true) AS
    SELECT * FROM lessons WHERE retired_at IS NULL;

CREATE TABLE tags (
    namespace  text NOT NULL,
    name       text NOT NULL,             -- dotted: lang.python.typing
    parent     text,                      -- NULL for a root
    status     text NOT NULL CHECK (status IN ('approved', 'proposed', 'rejected')),
    reason     text NOT NULL DEFAULT '',
    created_by text NOT NULL,
    decided_by text,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    decided_at timestamptz,
    PRIMARY KEY (namespace, name)
);

CREATE TABLE tag_aliases (
    namespace  text NOT NULL,
    alias      text NOT NULL,
    tag        text NOT NULL,
    created_by text NOT NULL,
    PRIMARY KEY (namespace, alias)
);

ALTER TABLE facts ADD COLUMN tags text[] NOT NULL DEFAULT '{}';
-- A view's `*` is fixed when it is created: recreate it with the new column
-- (same definition of live as in 0002).
DROP VIEW live_facts;
CREATE VIEW live_facts WITH (security_invoker = true) AS
    SELECT * FROM facts
    WHERE verdict IN ('active', 'contested', 'parked') AND retired_at IS NULL;

DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['world_facts', 'outcomes', 'lessons', 'tags', 'tag_aliases']
    LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format($p$CREATE POLICY tenant ON %I
            USING (namespace = current_setting('engram.namespace', true))
            WITH CHECK (namespace = current_setting('engram.namespace', true))$p$, t);
    END LOOP;
END $$;
