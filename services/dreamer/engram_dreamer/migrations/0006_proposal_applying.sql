-- Dreamer schema v6: an approved proposal is applied in three steps, none of
-- them holding a transaction across the cortex call: the decision is marked
-- ('applying', with who decided and why), cortex is called with the
-- proposal's idempotency key, then the mark is finalised ('approved'). A
-- mark left by a failure is finished by a retry of the decision or by the
-- next pass.
ALTER TABLE proposals DROP CONSTRAINT proposals_status_check;
ALTER TABLE proposals ADD CONSTRAINT proposals_status_check
    CHECK (status IN ('open', 'applying', 'approved', 'rejected', 'expired'));
