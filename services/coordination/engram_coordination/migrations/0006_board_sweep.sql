-- The board sweep (sweep.py) finds, across namespaces, which ones have
-- something to tidy; it reads only under its duty and then works inside each
-- namespace's own tenant transaction.
CREATE POLICY board_sweep ON messages FOR SELECT
    USING (current_setting('engram.board_sweep', true) = 'on');
CREATE POLICY board_sweep ON agents FOR SELECT
    USING (current_setting('engram.board_sweep', true) = 'on');
CREATE POLICY board_sweep ON leases FOR SELECT
    USING (current_setting('engram.board_sweep', true) = 'on');
CREATE POLICY board_sweep ON lease_queue FOR SELECT
    USING (current_setting('engram.board_sweep', true) = 'on');

-- Acknowledged mail whose body has not yet expired, oldest acknowledgement first.
CREATE INDEX messages_acked_body ON messages (acked_at)
    WHERE acked_at IS NOT NULL AND body IS NOT NULL;
