-- LwM2M installs in progress (docs/protocols/lwm2m.md#installs): where each LWM2M_FW or LWM2M_SW device task stands
-- on its device, so that it goes on from there after the device slept (queue mode), restarted into a new
-- registration, reached another process, or this process restarted. `object_id` is 5 (Firmware Update) or 9
-- (Software Management), `instance_id` the instance the package went to, `step` how far the service went: `download`
-- (the Package URI written), `update` (Object 5's Update executed) or `install` (Object 9's Install executed).
-- A row lives with its device task: removed once the device answered, with the task when the task is deleted, and by
-- the lwm2m.installs.prune job once the task ended otherwise (timed out, cancelled).
CREATE TABLE lwm2m_installs (
  task_uid text PRIMARY KEY REFERENCES device_tasks (uid) ON DELETE CASCADE,
  object_id integer NOT NULL,
  instance_id integer NOT NULL,
  step text NOT NULL,
  updated_at bigint NOT NULL
);
