-- Coordination schema v3: the audit is hash-chained per namespace
-- (engram_kit.audit): each row carries the previous row's hash and its own.
ALTER TABLE audit
    ADD COLUMN prev_hash text NOT NULL DEFAULT '',
    ADD COLUMN hash      text NOT NULL DEFAULT '';
CREATE INDEX audit_chain_tail ON audit (namespace, id DESC) WHERE hash <> '';
