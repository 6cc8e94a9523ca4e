-- Registration codes (docs/operations.md#csv-operations; docs/operations.md#csv-operations: REGISTRATION CODE "required
-- for specific gateway products, used with the serial number"). Products that need a code are marked here; a company's
-- gateway inventory (what the manufacturer shipped it: serial number, IMEI, product, code) is loaded by `fleet seed`,
-- and register checks a row's serial number and code against it.

CREATE TABLE gateway_products (
  type text PRIMARY KEY,
  registration_code boolean NOT NULL DEFAULT false
);

CREATE TABLE gateway_inventory (
  company_uid text NOT NULL REFERENCES companies (uid) ON DELETE CASCADE,
  serial_number text NOT NULL,
  imei text,
  type text NOT NULL,
  registration_code text,
  PRIMARY KEY (company_uid, serial_number)
);

-- docs/operations.md#csv-operations: "System labels are inherited by the new gateway and subscription".
ALTER TABLE gateways ADD COLUMN labels text[] NOT NULL DEFAULT '{}';
ALTER TABLE subscriptions ADD COLUMN labels text[] NOT NULL DEFAULT '{}';
