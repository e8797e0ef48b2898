-- Cortex schema v3: the graph. A closed relation vocabulary (a reviewer may
-- extend it), typed edges with provenance and validity, kept as history
-- when unrelated.
CREATE TABLE relations (
    namespace  text NOT NULL,
    name       text NOT NULL,
    inverse    text NOT NULL,
    transitive boolean NOT NULL DEFAULT false,
    is_symmetric boolean NOT NULL DEFAULT false,
    added_by   text NOT NULL DEFAULT 'engram',
    PRIMARY KEY (namespace, name)
);

CREATE TABLE edges (
    namespace   text NOT NULL,
    id          uuid NOT NULL,
    src         text NOT NULL,
    relation    text NOT NULL,
    dst         text NOT NULL,
    provenance  text NOT NULL CHECK (provenance IN ('asserted', 'extracted', 'inferred')),
    evidence_quote text NOT NULL DEFAULT '',
    writer_principal text NOT NULL,
    valid_from  timestamptz NOT NULL DEFAULT clock_timestamp(),
    valid_to    timestamptz,
    recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    retired_at  timestamptz,
    PRIMARY KEY (namespace, id)
);
CREATE UNIQUE INDEX edges_live ON edges (namespace, src, relation, dst) WHERE retired_at IS NULL;
CREATE INDEX edges_src ON edges (namespace, src) WHERE retired_at IS NULL;
CREATE INDEX edges_dst ON edges (namespace, dst) WHERE retired_at IS NULL;

-- "Live" for edges, defined once.
CREATE VIEW live_edges WITH (security_invoker = true) AS
    SELECT * FROM edges WHERE retired_at IS NULL;

DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['relations', 'edges']
    LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format($p$CREATE POLICY tenant ON %I
            USING (namespace = current_setting('engram.namespace', true))
            WITH CHECK (namespace = current_setting('engram.namespace', true))$p$, t);
    END LOOP;
END $$;
