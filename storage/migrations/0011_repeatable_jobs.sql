-- Repeatable jobs of the local queue (core/queue.ts repeat(), storage/queue/local-queue.ts): periodic work such as
-- the operation-timeout and communication-status sweepers, run once per period by whichever process claims it.
-- A repeatable job is one row that is never deleted: once a run ends, its run_at moves forward by this period
-- (epoch ms, as everywhere in the store). NULL: an ordinary job, deleted once finished.
ALTER TABLE jobs ADD COLUMN repeat_every_ms bigint;
