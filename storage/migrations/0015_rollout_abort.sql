-- Safe rollouts (docs/operations.md#bulk-operations). Why an operation's remaining tasks were cancelled when its
-- failure threshold (parameters.abort) was reached; null while it was not.
ALTER TABLE operations ADD COLUMN aborted_by jsonb;
-- The release budget of a rollout counts the operation's tasks started in the last minute (core/operations/rollout.ts).
CREATE INDEX operation_tasks_started_idx ON operation_tasks (operation_uid, start_date) WHERE start_date IS NOT NULL;
