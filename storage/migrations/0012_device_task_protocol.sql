-- Device tasks carry their transport (tasks travel to devices over their own protocol), and are found by
-- their operation (cancel and timeout withdraw what was not delivered).
ALTER TABLE device_tasks ADD COLUMN protocol text NOT NULL DEFAULT 'MQTT';
ALTER TABLE device_tasks ALTER COLUMN protocol DROP DEFAULT;
-- The operation task a device task carries out: one operation task may need several device tasks in turn (apply
-- settings, then reboot).
ALTER TABLE device_tasks ADD COLUMN operation_task_uid text;
CREATE INDEX device_tasks_operation_idx ON device_tasks (operation_uid) WHERE operation_uid IS NOT NULL;
CREATE INDEX device_tasks_operation_task_idx ON device_tasks (operation_task_uid) WHERE operation_task_uid IS NOT NULL;
