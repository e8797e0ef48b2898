-- Coordination schema v2: the agent board (presence detail, leases, mail,
-- audit). Every table carries the namespace and is guarded by RLS.
ALTER TABLE agents
    ADD COLUMN expect_at     timestamptz,
    ADD COLUMN children      jsonb NOT NULL DEFAULT '[]'::jsonb,
    ADD COLUMN park_reason   text,
    ADD COLUMN park_needs    text NOT NULL DEFAULT '',
    ADD COLUMN park_clear_by text NOT NULL DEFAULT '',
    ADD COLUMN park_resume   text NOT NULL DEFAULT '',
    ADD COLUMN park_expires  timestamptz,
    ADD COLUMN park_set_at   timestamptz,
    ADD COLUMN created_at    timestamptz NOT NULL DEFAULT now();
CREATE INDEX agents_last_seen ON agents (namespace, last_seen DESC);
CREATE INDEX agents_project ON agents (namespace, project);

-- One row per lease name, never deleted: last_token must keep increasing
-- across grants, releases and expiries.
CREATE TABLE leases (
    namespace   text NOT NULL,
    name        text NOT NULL,
    holder      text,                   -- agent id; NULL: released
    last_token  bigint NOT NULL DEFAULT 0,
    granted_at  timestamptz,
    expires_at  timestamptz,
    free_since  timestamptz,            -- released or expired at; starts the queue hand-over
    offered_to  text,                   -- the queue head notified of its hand-over window
    PRIMARY KEY (namespace, name)
);

CREATE TABLE lease_queue (
    namespace  text NOT NULL,
    name       text NOT NULL,
    agent_id   text NOT NULL,
    seq        bigserial,
    queued_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (namespace, name, agent_id)
);
CREATE INDEX lease_queue_order ON lease_queue (namespace, name, seq);

CREATE TABLE messages (
    namespace     text NOT NULL,
    id            uuid NOT NULL,
    batch_id      uuid NOT NULL,        -- one send; a fan-out counts once against rates
    sender        text NOT NULL,        -- agent id, or "board" for notices
    sender_principal text NOT NULL,
    recipient     text NOT NULL,
    addressed_to  text NOT NULL,
    request_id    text NOT NULL DEFAULT '',
    kind          text NOT NULL DEFAULT 'mail' CHECK (kind IN ('mail', 'notice')),
    body          text,                 -- NULL once redacted
    body_sha256   text NOT NULL,
    sent_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    acked_at      timestamptz,
    redacted_at   timestamptz,
    redacted_by   text,
    PRIMARY KEY (namespace, id)
);
CREATE UNIQUE INDEX messages_dedup ON messages (namespace, sender, request_id, recipient)
    WHERE request_id <> '';
CREATE INDEX messages_pending ON messages (namespace, recipient, sent_at, id)
    WHERE acked_at IS NULL;
CREATE INDEX messages_sender_recent ON messages (namespace, sender, sent_at);

-- Append-only: the runtime role gets no UPDATE/DELETE here (see migrate.py).
CREATE TABLE audit (
    namespace  text NOT NULL,
    id         bigserial,
    at         timestamptz NOT NULL DEFAULT clock_timestamp(),
    principal  text NOT NULL,
    agent_id   text NOT NULL,
    action     text NOT NULL,
    subject    text NOT NULL DEFAULT '',
    detail     jsonb NOT NULL DEFAULT '{}'::jsonb,
    PRIMARY KEY (namespace, id)
);

ALTER TABLE leases ENABLE ROW LEVEL SECURITY;
ALTER TABLE leases FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON leases
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
-- The hand-over sweep finds namespaces with freed, queued leases; it reads
-- this table only and does its work in per-namespace transactions.
CREATE POLICY lease_sweep ON leases FOR SELECT
    USING (current_setting('engram.lease_sweep', true) = 'on');

ALTER TABLE lease_queue ENABLE ROW LEVEL SECURITY;
ALTER TABLE lease_queue FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON lease_queue
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
CREATE POLICY lease_sweep ON lease_queue FOR SELECT
    USING (current_setting('engram.lease_sweep', true) = 'on');

ALTER TABLE messages ENABLE ROW LEVEL SECURITY;
ALTER TABLE messages FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON messages
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));

ALTER TABLE audit ENABLE ROW LEVEL SECURITY;
ALTER TABLE audit FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON audit
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
