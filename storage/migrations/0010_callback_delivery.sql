-- How an operation's callbacks went (docs/operations.md#bulk-operations: the operation JSON shows `callbackDelivery`):
-- every try of every state change's event counts; the last try's outcome is kept. Written by the engine after each try.
ALTER TABLE operations ADD COLUMN callback_attempts integer NOT NULL DEFAULT 0;
ALTER TABLE operations ADD COLUMN callback_last_status integer;
ALTER TABLE operations ADD COLUMN callback_last_error text;
ALTER TABLE operations ADD COLUMN callback_last_attempt_at bigint;
ALTER TABLE operations ADD COLUMN callback_delivered boolean NOT NULL DEFAULT false;

-- GET /api/v1/gateways and GET /api/v1/subscriptions (storage/repositories/parts-find.sql.ts): the company's parts in
-- creation order, and the subscription identifiers looked up exactly (imei, serial number, MAC address and ICCID
-- have their per-company unique indexes already, 0002_systems.sql).
CREATE INDEX gateways_company_creation_idx ON gateways (company_uid, creation_date, uid);
CREATE INDEX subscriptions_company_creation_idx ON subscriptions (company_uid, creation_date, uid);
CREATE INDEX subscriptions_company_mobile_idx ON subscriptions (company_uid, mobile_number) WHERE mobile_number IS NOT NULL;
CREATE INDEX subscriptions_company_network_idx ON subscriptions (company_uid, network_identifier) WHERE network_identifier IS NOT NULL;
