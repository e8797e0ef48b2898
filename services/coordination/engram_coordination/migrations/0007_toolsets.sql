-- Each principal's toolset tier (how many tools its agents see), per
-- namespace: every gateway replica reads it here, so a tier set through one
-- holds on all. The tier is 1 minimal, 2 core, 3 full (ToolsetTier).
CREATE TABLE toolsets (
    namespace   text NOT NULL,
    principal   text NOT NULL,
    tier        smallint NOT NULL CHECK (tier BETWEEN 1 AND 3),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (namespace, principal)
);

ALTER TABLE toolsets ENABLE ROW LEVEL SECURITY;
ALTER TABLE toolsets FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON toolsets
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
