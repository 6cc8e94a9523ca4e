-- Device messages and acks without a foreign key to systems (docs/devices.md: the measured costs of the ingest
-- are its inserts). A foreign key checks every inserted row against its parent: a lookup of the system row, which it
-- also locks (FOR KEY SHARE), so the thousands of messages a second of one ingest batch each locked their system's
-- row again, and concurrent batches shared those locks through multixacts. About a quarter of the cost of a message
-- row (bench ingest). data_points has had none from the start (0005_telemetry.sql); like it, these rows are deleted
-- with their system by the systems repository (storage/repositories/systems.repository.ts), and the ingest
-- transaction stores nothing for a system it does not find (TelemetryRepository.existingSystems).
ALTER TABLE device_messages DROP CONSTRAINT device_messages_system_uid_fkey;
ALTER TABLE device_acks DROP CONSTRAINT device_acks_system_uid_fkey;
