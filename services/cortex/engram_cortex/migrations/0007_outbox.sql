-- Cortex schema v7: the transactional outbox. A fact write or an outcome
-- record inserts its event here in the same transaction; the kit's relay
-- publishes it to JetStream (Nats-Msg-Id = id) for the dreamer.
CREATE TABLE outbox (
    id           uuid PRIMARY KEY,           -- the event id (Nats-Msg-Id)
    seq          bigserial NOT NULL,
    namespace    text NOT NULL,
    subject      text NOT NULL,
    payload      bytea NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz
);
CREATE INDEX outbox_pending ON outbox (seq) WHERE published_at IS NULL;

ALTER TABLE outbox ENABLE ROW LEVEL SECURITY;
ALTER TABLE outbox FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON outbox
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
-- The relay reads and marks every namespace's rows, only inside a
-- transaction that declares itself the relay.
CREATE POLICY relay ON outbox
    USING (current_setting('engram.outbox_relay', true) = 'on');
