-- Bulk operations (docs/operations.md#bulk-operations). Operation and task state live here
-- whatever the queue (jobs table or BullMQ): the queue only says when to look.

CREATE TABLE operations (
  uid text PRIMARY KEY,
  company_uid text NOT NULL REFERENCES companies (uid) ON DELETE CASCADE,
  type text NOT NULL,
  state text NOT NULL CHECK (state IN ('SCHEDULED', 'IN_PROGRESS', 'FINISHED')),
  created_at bigint NOT NULL,
  start_date bigint,
  scheduled_time bigint,
  timeout_date bigint NOT NULL,
  end_date bigint,
  cancel_date bigint,
  total integer NOT NULL DEFAULT 0,
  target text,
  user_uid text,
  user_email text,
  notify boolean NOT NULL DEFAULT false,
  callback text,
  parameters jsonb NOT NULL DEFAULT '{}',
  depends_on jsonb,
  -- Tasks of a dependsOn operation are made when its parent finishes.
  resolved boolean NOT NULL DEFAULT true
);
CREATE INDEX operations_company_created_idx ON operations (company_uid, created_at DESC);
CREATE INDEX operations_open_idx ON operations (state) WHERE state <> 'FINISHED';
CREATE INDEX operations_depends_idx ON operations ((depends_on ->> 'operation')) WHERE depends_on IS NOT NULL;

CREATE TABLE operation_tasks (
  uid text PRIMARY KEY,
  operation_uid text NOT NULL REFERENCES operations (uid) ON DELETE CASCADE,
  seq integer NOT NULL,
  system_uid text NOT NULL,
  system_name text,
  state text NOT NULL CHECK (state IN ('PENDING', 'IN_PROGRESS', 'SUCCESS', 'FAILURE', 'BEING_CANCELLED', 'CANCELLED')),
  created_at bigint NOT NULL,
  start_date bigint,
  end_date bigint,
  error_code text,
  error_message text,
  line integer,
  params jsonb
);
CREATE UNIQUE INDEX operation_tasks_seq_key ON operation_tasks (operation_uid, seq);
CREATE INDEX operation_tasks_state_idx ON operation_tasks (operation_uid, state, seq);
CREATE INDEX operation_tasks_system_idx ON operation_tasks (system_uid);

-- The file an export operation produces (GET /api/v1/operations/{uid}/file).
CREATE TABLE operation_files (
  operation_uid text PRIMARY KEY REFERENCES operations (uid) ON DELETE CASCADE,
  name text NOT NULL,
  content_type text NOT NULL,
  data bytea NOT NULL
);

-- Named sets of data ids (export data history `dataset`).
CREATE TABLE datasets (
  uid text PRIMARY KEY,
  company_uid text NOT NULL REFERENCES companies (uid) ON DELETE CASCADE,
  name text NOT NULL,
  data text[] NOT NULL
);
CREATE UNIQUE INDEX datasets_key ON datasets (company_uid, name);
