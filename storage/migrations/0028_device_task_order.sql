-- A system's tasks go to its device oldest first (docs/devices.md). created_at is in ms, and tasks
-- written within the same ms (two inserts in a row, the chunks of two operations) came back in whatever order the
-- store's UPDATE ... RETURNING gave them (seen in CI: two reads of one system sent second first). seq keeps the order
-- they were written in; the repository sorts by (created_at, seq). Existing rows are numbered in their stored order.
ALTER TABLE device_tasks ADD COLUMN seq bigserial;
