-- The local job queue (docs/architecture.md#one-process-by-default-scaled-out-by-environment: a jobs table in the
-- store, worked in-process; storage/queue/local-queue.ts). One row per waiting, delayed or running job: a finished job
-- is deleted. Timestamps are epoch milliseconds, as everywhere in the store.

CREATE TABLE jobs (
  -- Namespace, so that several queues (or test runs) can share one table.
  queue text NOT NULL,
  id text NOT NULL,
  name text NOT NULL,
  payload jsonb,
  -- The job may start from this time on (the delay of a delayed job, the backoff of a retry).
  run_at bigint NOT NULL,
  -- Runs started so far, and the most it gets.
  attempt integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL,
  -- The lease of a running job: its worker renews it while the handler runs; once it has passed (the
  -- worker died) the job may be claimed again. locked_by is the claim's token, checked by every update.
  locked_until bigint,
  locked_by text,
  last_error text,
  created_at bigint NOT NULL,
  PRIMARY KEY (queue, id)
);

-- Claiming takes the earliest due jobs of a queue: (queue, run_at) serves "run_at <= now ORDER BY run_at".
CREATE INDEX jobs_due_idx ON jobs (queue, run_at);
