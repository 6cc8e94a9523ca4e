-- Device messages and time series (docs/devices.md). docs/architecture.md#storage: one narrow table, written in
-- batches, read by (system, data id, time); it can become a partitioned table or a hypertable unchanged.

CREATE TABLE device_messages (
  uid text PRIMARY KEY,
  system_uid text NOT NULL REFERENCES systems (uid) ON DELETE CASCADE,
  protocol text NOT NULL,
  ts bigint NOT NULL,           -- the message timestamp (its latest point)
  received_at bigint NOT NULL,
  nb_data_points integer NOT NULL
);
CREATE INDEX device_messages_system_ts_idx ON device_messages (system_uid, ts DESC, uid);

-- A value is a number (num), a string (str), a boolean (num 1/0 and str 'true'/'false') or null (both null):
-- aggregates read num, and the original type comes back from the pair.
-- No foreign key here: checking one per point would cost the ingest a parent lookup per row. The system's points
-- are deleted with it by the systems repository.
CREATE TABLE data_points (
  system_uid text NOT NULL,
  data_id text NOT NULL,
  ts bigint NOT NULL,
  num double precision,
  str text,
  message_uid text NOT NULL
);
CREATE INDEX data_points_series_idx ON data_points (system_uid, data_id, ts DESC);
CREATE INDEX data_points_message_idx ON data_points (message_uid);

-- The latest point of every (system, data id): last data points and the System data fields.
CREATE TABLE data_last (
  system_uid text NOT NULL REFERENCES systems (uid) ON DELETE CASCADE,
  data_id text NOT NULL,
  ts bigint NOT NULL,
  num double precision,
  str text,
  PRIMARY KEY (system_uid, data_id)
);

-- When each System data field was last set, so that a late message never overwrites newer values.
ALTER TABLE systems ADD COLUMN data_ts jsonb NOT NULL DEFAULT '{}';

-- Tasks for devices (read, write, command), delivered over their protocol and finished by their acknowledgement.
CREATE TABLE device_tasks (
  uid text PRIMARY KEY,
  system_uid text NOT NULL REFERENCES systems (uid) ON DELETE CASCADE,
  operation_uid text,
  body jsonb NOT NULL,
  state text NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING', 'SENT', 'OK', 'ERROR', 'CANCELLED')),
  created_at bigint NOT NULL,
  sent_at bigint,
  acked_at bigint,
  message text
);
CREATE INDEX device_tasks_pending_idx ON device_tasks (system_uid, created_at) WHERE state IN ('PENDING', 'SENT');

CREATE TABLE device_acks (
  id bigserial PRIMARY KEY,
  system_uid text NOT NULL REFERENCES systems (uid) ON DELETE CASCADE,
  task_uid text NOT NULL,
  status text NOT NULL,
  message text,
  protocol text NOT NULL,
  received_at bigint NOT NULL
);
CREATE INDEX device_acks_task_idx ON device_acks (task_uid);

-- Cellular usage records (docs/usage.md). Interim DATA records share the session uid; a repeated
-- record (same uid, type, start, end) is stored once (docs/usage.md).
CREATE TABLE usage_records (
  id bigserial PRIMARY KEY,
  system_uid text NOT NULL REFERENCES systems (uid) ON DELETE CASCADE,
  uid text NOT NULL,
  type text NOT NULL CHECK (type IN ('DATA', 'SMS_SENT', 'SMS_RECEIVED', 'VOICE_IN', 'VOICE_OUT', 'MSU')),
  start_ts bigint NOT NULL,
  end_ts bigint,
  processed_at bigint,          -- when the session end was processed: INVOICED_ counters use it
  partial boolean NOT NULL DEFAULT false,
  bytes_sent bigint,
  bytes_received bigint,
  bytes_total bigint,
  rounded_bytes_total bigint,
  rounded_duration bigint,
  fields jsonb NOT NULL DEFAULT '{}'
);
CREATE UNIQUE INDEX usage_records_key ON usage_records (system_uid, uid, type, start_ts, coalesce(end_ts, -1));
CREATE INDEX usage_records_system_start_idx ON usage_records (system_uid, start_ts DESC);
