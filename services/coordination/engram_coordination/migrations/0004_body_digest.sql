-- Coordination schema v4: a message keeps a keyed digest of its body
-- (HMAC-SHA256 under the stack's audit key), which outlives a redaction; an
-- unkeyed hash of a short body gives it back to a dictionary.
ALTER TABLE messages RENAME COLUMN body_sha256 TO body_hmac;
-- Digests written before were unkeyed: cleared ('' matches no digest, so a
-- request_id replayed across the upgrade is refused, not taken as the same).
UPDATE messages SET body_hmac = '';
COMMENT ON COLUMN messages.body_hmac IS
    'HMAC-SHA256 of the body under ENGRAM_AUDIT_HMAC_KEY; empty for messages written before v4';
