-- Usage records (docs/usage.md). The
-- table itself is in 0005_telemetry.sql; this adds what the import, the lists and the billing need.

-- Billing increments of an offer (docs/usage.md: invoiced values are rounded to the billing
-- increment). NULL: the service's default (core/domain/usage-billing.ts: 1 KiB of data, 60 s of voice).
ALTER TABLE offers ADD COLUMN data_increment_bytes bigint CHECK (data_increment_bytes > 0);
ALTER TABLE offers ADD COLUMN voice_increment_seconds integer CHECK (voice_increment_seconds > 0);

-- The multi-system list answers the `size` most recent records per (system, type): one index range per pair.
CREATE INDEX usage_records_system_type_start_idx ON usage_records (system_uid, type, start_ts DESC);
-- The record detail (GET /systems/{uid}/usages/records/{record_uid}) and the session count of the aggregations.
CREATE INDEX usage_records_system_uid_idx ON usage_records (system_uid, uid);
-- INVOICED_ counters read records by the date their end was processed.
CREATE INDEX usage_records_system_processed_idx ON usage_records (system_uid, processed_at);
