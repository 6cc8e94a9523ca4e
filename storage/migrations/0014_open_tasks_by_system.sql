-- The open tasks of a system (retrieve data): each stored device message looks for the tasks of its system
-- that wait for values; a system's task history grows, its open tasks stay few.
CREATE INDEX operation_tasks_open_system_idx ON operation_tasks (system_uid) WHERE state IN ('IN_PROGRESS', 'BEING_CANCELLED');
