-- Dreamer schema v1: the idempotency ledger of consumed events.
CREATE TABLE processed_events (
    namespace    text NOT NULL,
    consumer     text NOT NULL,
    event_id     uuid NOT NULL,
    event_type   text NOT NULL,
    subject_id   text NOT NULL DEFAULT '',
    occurred_at  timestamptz,
    processed_at timestamptz NOT NULL DEFAULT now(),
    -- times the same event arrived again after it was processed (redelivery);
    -- it is never applied twice.
    redeliveries int NOT NULL DEFAULT 0,
    PRIMARY KEY (consumer, event_id)
);
CREATE INDEX processed_events_ns_time ON processed_events (namespace, processed_at DESC);

ALTER TABLE processed_events ENABLE ROW LEVEL SECURITY;
ALTER TABLE processed_events FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant ON processed_events
    USING (namespace = current_setting('engram.namespace', true))
    WITH CHECK (namespace = current_setting('engram.namespace', true));
