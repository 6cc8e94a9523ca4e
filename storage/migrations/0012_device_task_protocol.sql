-- Device tasks carry their transport (issue 9: tasks travel to devices over their own protocol), and are found by
-- their operation (cancel and timeout withdraw what was not delivered).
ALTER TABLE device_tasks ADD COLUMN protocol text NOT NULL DEFAULT 'MQTT';
ALTER TABLE device_tasks ALTER COLUMN protocol DROP DEFAULT;
CREATE INDEX device_tasks_operation_idx ON device_tasks (operation_uid) WHERE operation_uid IS NOT NULL;
