-- A DDI action lives with its device task (docs/protocols/ddi.md#action-ids): removed with it whenever device tasks
-- are removed, beside the hourly removal of actions ended a week ago (ingest/ddi/action-prune.ts). An action whose
-- device task is already gone names nothing and goes first.
DELETE FROM ddi_actions a WHERE NOT EXISTS (SELECT 1 FROM device_tasks d WHERE d.uid = a.task_uid);
ALTER TABLE ddi_actions ADD CONSTRAINT ddi_actions_task_uid_fkey
  FOREIGN KEY (task_uid) REFERENCES device_tasks (uid) ON DELETE CASCADE;
