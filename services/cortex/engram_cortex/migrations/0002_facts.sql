-- Cortex schema v2: facts with per-kind columns, evidence, both time axes and
-- supersession links; slots (set-valued or not); conflicts; tombstones;
-- entities and aliases; audit. Every table carries the namespace under RLS.
ALTER TABLE facts
    ADD COLUMN norm_value        text NOT NULL DEFAULT '',
    ADD COLUMN writer_client     text NOT NULL DEFAULT '',
    ADD COLUMN writer_session    text NOT NULL DEFAULT '',
    ADD COLUMN scope             text,
    ADD COLUMN trigger_predicate text,
    ADD COLUMN status_detail     text,
    ADD COLUMN expected_lifetime interval,
    ADD COLUMN earned_by         text,
    ADD COLUMN risk_weight       real,
    ADD COLUMN subject           text,
    ADD COLUMN supersedes        uuid REFERENCES facts (id) ON DELETE SET NULL,
    ADD COLUMN superseded_by     uuid REFERENCES facts (id) ON DELETE SET NULL,
    ADD COLUMN set_member        boolean NOT NULL DEFAULT false,
    ADD COLUMN retire_reason     text NOT NULL DEFAULT '';
ALTER TABLE facts ALTER COLUMN recorded_at SET DEFAULT clock_timestamp();
ALTER TABLE facts ADD CONSTRAINT facts_confidence CHECK (confidence > 0 AND confidence <= 1);
CREATE INDEX facts_entity ON facts (namespace, entity, recorded_at);
CREATE INDEX facts_embedding ON facts USING hnsw (embedding vector_cosine_ops);
CREATE INDEX facts_lexical ON facts USING gin (
    to_tsvector('simple', entity || ' ' || replace(attribute, '_', ' ') || ' ' || value));

-- "Live" for facts, defined once: what may be served at all (contested
-- facts are served with both sides, parked ones flagged as contenders).
DROP VIEW live_facts;
CREATE VIEW live_facts WITH (security_invoker = true) AS
    SELECT * FROM facts
    WHERE verdict IN ('active', 'contested', 'parked') AND retired_at IS NULL;

CREATE TABLE slots (
    namespace  text NOT NULL,
    entity     text NOT NULL,
    attribute  text NOT NULL,
    set_valued boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (namespace, entity, attribute)
);

CREATE TABLE conflicts (
    namespace  text NOT NULL,
    id         uuid NOT NULL,
    fact_a     uuid NOT NULL REFERENCES facts (id),
    fact_b     uuid NOT NULL REFERENCES facts (id),
    lane       text NOT NULL CHECK (lane IN ('rule', 'contested')),
    status     text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved', 'both_stand')),
    winner     uuid REFERENCES facts (id),
    reasoning  text NOT NULL DEFAULT '',
    decided_by text,
    opened_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    decided_at timestamptz,
    PRIMARY KEY (namespace, id)
);
CREATE INDEX conflicts_open ON conflicts (namespace, status, opened_at);
CREATE INDEX conflicts_fact_a ON conflicts (fact_a);
CREATE INDEX conflicts_fact_b ON conflicts (fact_b);

-- Retired (slot, normalised value) pairs: a value that comes back is known.
CREATE TABLE tombstones (
    namespace  text NOT NULL,
    entity     text NOT NULL,
    attribute  text NOT NULL,
    norm_value text NOT NULL,
    fact_id    uuid NOT NULL,
    reason     text NOT NULL,
    retired_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (namespace, entity, attribute, norm_value)
);

CREATE TABLE entities (
    namespace  text NOT NULL,
    name       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (namespace, name)
);

CREATE TABLE aliases (
    namespace  text NOT NULL,
    alias      text NOT NULL,
    entity     text NOT NULL,
    created_by text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (namespace, alias)
);

-- Append-only: the runtime role gets no UPDATE/DELETE here (see migrate.py).
CREATE TABLE audit (
    namespace  text NOT NULL,
    id         bigserial,
    at         timestamptz NOT NULL DEFAULT clock_timestamp(),
    principal  text NOT NULL,
    action     text NOT NULL,
    subject    text NOT NULL DEFAULT '',
    detail     jsonb NOT NULL DEFAULT '{}'::jsonb,
    PRIMARY KEY (namespace, id)
);

DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['slots', 'conflicts', 'tombstones', 'entities', 'aliases', 'audit']
    LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format($p$CREATE POLICY tenant ON %I
            USING (namespace = current_setting('engram.namespace', true))
            WITH CHECK (namespace = current_setting('engram.namespace', true))$p$, t);
    END LOOP;
END $$;
