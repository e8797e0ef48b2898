-- Each principal's toolset tier (how many tools its agents see): every
-- gateway replica reads it here, so a tier set through one holds on all.
-- A tier belongs to a principal, in every namespace it holds, so the rows
-- are guarded by the principal rather than a namespace. The tier is
-- 1 minimal, 2 core, 3 full (ToolsetTier).
CREATE TABLE toolsets (
    principal   text PRIMARY KEY,
    tier        smallint NOT NULL CHECK (tier BETWEEN 1 AND 3),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE toolsets ENABLE ROW LEVEL SECURITY;
ALTER TABLE toolsets FORCE ROW LEVEL SECURITY;
CREATE POLICY own ON toolsets
    USING (principal = current_setting('engram.principal', true))
    WITH CHECK (principal = current_setting('engram.principal', true));
