-- Find systems (docs/api.md#systems; Systems, find + speed): indexes for the filters and sorts users
-- combine most, on top of those of 0002_systems.sql. Measured with `npm run bench -- find`.

-- `contains` filters (ILIKE '%x%') on the name and on the identifiers people type: trigram indexes. PGlite loads
-- the extension in storage/pglite-db.ts, so this same SQL runs on both stores.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX systems_name_trgm_idx ON systems USING gin (name gin_trgm_ops);
CREATE INDEX gateways_serial_trgm_idx ON gateways USING gin (serial_number gin_trgm_ops);
CREATE INDEX gateways_imei_trgm_idx ON gateways USING gin (imei gin_trgm_ops);
CREATE INDEX gateways_mac_trgm_idx ON gateways USING gin (mac_address gin_trgm_ops);
CREATE INDEX subscriptions_identifier_trgm_idx ON subscriptions USING gin (identifier gin_trgm_ops);
CREATE INDEX subscriptions_mobile_trgm_idx ON subscriptions USING gin (mobile_number gin_trgm_ops);

-- Sort by lastCommDate, newest first, never-communicated systems last (systems.repository.ts, orderSql); the
-- ascending order reads systems_company_lastcomm_idx backwards.
CREATE INDEX systems_company_lastcomm_desc_idx ON systems (company_uid, last_comm_date DESC NULLS LAST);

-- lifeCycleStates with commStatus: the count of a full page reads this index alone.
CREATE INDEX systems_company_lifecycle_comm_idx ON systems (company_uid, life_cycle_state, comm_status);
