-- Cortex schema v5: a journal of the rows a batch of writes changed (pre- and
-- post-images), so a batch (a dream pass) can be reverted exactly, or
-- refused when later writes depend on it.
CREATE TABLE batches (
    namespace   text NOT NULL,
    batch       text NOT NULL,
    status      text NOT NULL DEFAULT 'applied' CHECK (status IN ('applied', 'reverted')),
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    reverted_at timestamptz,
    reverted_by text,
    PRIMARY KEY (namespace, batch)
);

CREATE TABLE journal (
    namespace  text NOT NULL,
    batch      text NOT NULL,
    seq        bigserial,
    tbl        text NOT NULL CHECK (tbl IN ('facts', 'conflicts', 'tombstones', 'slots',
                                            'entities')),
    op         text NOT NULL CHECK (op IN ('insert', 'update')),
    row_key    jsonb NOT NULL,
    pre_image  jsonb,
    post_image jsonb NOT NULL,
    PRIMARY KEY (namespace, batch, seq)
);

DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['batches', 'journal']
    LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format($p$CREATE POLICY tenant ON %I
            USING (namespace = current_setting('engram.namespace', true))
            WITH CHECK (namespace = current_setting('engram.namespace', true))$p$, t);
    END LOOP;
END $$;
