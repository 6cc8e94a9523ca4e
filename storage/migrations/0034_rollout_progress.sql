-- Safe rollouts (docs/operations.md#safe-rollouts). paused_at: set while a user has paused the operation (no task
-- leaves until it is resumed). rollout_next_at: when the rollout next lets a task leave (a spent maxPerMinute, a
-- closed maintenance window), shown as the operation JSON's rollout.nextAt; null while nothing waits for a time.
-- Both are written under the operation's row lock, with the tasks they concern (core/operations/rollout-gate.ts).
ALTER TABLE operations ADD COLUMN paused_at bigint;
ALTER TABLE operations ADD COLUMN rollout_next_at bigint;
