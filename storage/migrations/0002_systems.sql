-- Systems and what they are made of (docs/api.md#systems): gateways, subscriptions, applications (a catalogue of
-- public and company-owned ones), offers, options, setting templates and operator accounts.

CREATE TABLE applications (
  uid text PRIMARY KEY,
  company_uid text REFERENCES companies (uid) ON DELETE CASCADE, -- null: public application
  name text NOT NULL,
  revision text NOT NULL,
  type text NOT NULL,
  category text NOT NULL CHECK (category IN ('SOFTWARE', 'FIRMWARE')),
  protocols text[] NOT NULL DEFAULT '{}',
  data jsonb NOT NULL DEFAULT '[]',
  actions jsonb NOT NULL DEFAULT '[]',
  created_at bigint NOT NULL
);
CREATE UNIQUE INDEX applications_key ON applications (coalesce(company_uid, ''), type, revision);

CREATE TABLE operator_accounts (
  uid text PRIMARY KEY,
  company_uid text NOT NULL REFERENCES companies (uid) ON DELETE CASCADE,
  name text NOT NULL,
  operator text NOT NULL,
  swap_supported boolean NOT NULL DEFAULT true
);
CREATE UNIQUE INDEX operator_accounts_key ON operator_accounts (company_uid, name);

CREATE TABLE offers (
  uid text PRIMARY KEY,
  company_uid text NOT NULL REFERENCES companies (uid) ON DELETE CASCADE,
  name text NOT NULL,
  limit_bytes bigint,
  types text[] NOT NULL DEFAULT '{}'
);
CREATE UNIQUE INDEX offers_key ON offers (company_uid, name);

CREATE TABLE setting_templates (
  uid text PRIMARY KEY,
  company_uid text NOT NULL REFERENCES companies (uid) ON DELETE CASCADE,
  name text NOT NULL,
  settings jsonb NOT NULL DEFAULT '[]'
);
CREATE UNIQUE INDEX setting_templates_key ON setting_templates (company_uid, name);

CREATE TABLE options (
  uid text PRIMARY KEY,
  company_uid text REFERENCES companies (uid) ON DELETE CASCADE, -- null: offered to every company
  type text NOT NULL,
  name text NOT NULL,
  config text
);
CREATE UNIQUE INDEX options_key ON options (coalesce(company_uid, ''), type, name);

CREATE TABLE gateways (
  uid text PRIMARY KEY,
  company_uid text NOT NULL REFERENCES companies (uid) ON DELETE CASCADE,
  imei text,
  serial_number text,
  mac_address text,
  esn text,
  meid text,
  type text,
  state text NOT NULL DEFAULT 'INVENTORY',
  transfer_to text,
  creation_date bigint NOT NULL
);
-- docs/api.md#systems: one gateway per identifier in a company.
CREATE UNIQUE INDEX gateways_imei_key ON gateways (company_uid, imei) WHERE imei IS NOT NULL;
CREATE UNIQUE INDEX gateways_serial_key ON gateways (company_uid, serial_number) WHERE serial_number IS NOT NULL;
CREATE UNIQUE INDEX gateways_mac_key ON gateways (company_uid, mac_address) WHERE mac_address IS NOT NULL;

CREATE TABLE subscriptions (
  uid text PRIMARY KEY,
  company_uid text NOT NULL REFERENCES companies (uid) ON DELETE CASCADE,
  identifier text NOT NULL,
  mobile_number text,
  network_identifier text,
  ip_address text,
  requested_ip text,
  eid text,
  operator text NOT NULL,
  operator_account_uid text REFERENCES operator_accounts (uid),
  state text NOT NULL DEFAULT 'INVENTORY',
  applet_generation text,
  form_factor text,
  conf_type text,
  technology text,
  order_id text,
  product_ref_name text,
  activation_imei text,
  imei_lock jsonb,
  creation_date bigint NOT NULL
);
CREATE UNIQUE INDEX subscriptions_identifier_key ON subscriptions (company_uid, identifier);

CREATE TABLE systems (
  uid text PRIMARY KEY,
  company_uid text NOT NULL REFERENCES companies (uid) ON DELETE CASCADE,
  name text NOT NULL,
  type text,
  life_cycle_state text NOT NULL,
  state text NOT NULL,
  activity_state text NOT NULL,
  creation_date bigint NOT NULL,
  activation_date bigint,
  last_state_change_date bigint NOT NULL,
  last_comm_date bigint,
  comm_status text NOT NULL DEFAULT 'UNDEFINED',
  last_sync_date bigint,
  sync_status text NOT NULL DEFAULT 'NOT_SYNC',
  labels text[] NOT NULL DEFAULT '{}',
  gateway_uid text UNIQUE REFERENCES gateways (uid) ON DELETE SET NULL,
  subscription_uid text UNIQUE REFERENCES subscriptions (uid) ON DELETE SET NULL,
  metadata jsonb NOT NULL DEFAULT '{}',
  communication jsonb NOT NULL DEFAULT '{}',
  data jsonb NOT NULL DEFAULT '{}',
  heartbeat jsonb,
  status_report jsonb,
  reports jsonb NOT NULL DEFAULT '[]',
  offer_uid text REFERENCES offers (uid) ON DELETE SET NULL,
  last_applied_template text,
  last_config_name text,
  month_bytes_total bigint NOT NULL DEFAULT 0,
  month_bytes_time bigint,
  usage_status text NOT NULL DEFAULT 'WITHIN_PLAN'
);
-- The filters users combine most (Systems, Speed).
CREATE INDEX systems_company_creation_idx ON systems (company_uid, creation_date DESC, uid);
CREATE INDEX systems_company_name_idx ON systems (company_uid, lower(name));
CREATE INDEX systems_company_lifecycle_idx ON systems (company_uid, life_cycle_state, creation_date DESC);
CREATE INDEX systems_company_comm_idx ON systems (company_uid, comm_status, creation_date DESC);
CREATE INDEX systems_company_lastcomm_idx ON systems (company_uid, last_comm_date DESC);
CREATE INDEX systems_labels_idx ON systems USING gin (labels);
CREATE INDEX systems_metadata_idx ON systems USING gin (metadata);
CREATE INDEX gateways_serial_idx ON gateways (serial_number);
CREATE INDEX gateways_imei_idx ON gateways (imei);
CREATE INDEX subscriptions_identifier_idx ON subscriptions (identifier);

CREATE TABLE system_applications (
  system_uid text NOT NULL REFERENCES systems (uid) ON DELETE CASCADE,
  application_uid text NOT NULL REFERENCES applications (uid),
  PRIMARY KEY (system_uid, application_uid)
);
CREATE INDEX system_applications_app_idx ON system_applications (application_uid);

CREATE TABLE system_options (
  system_uid text NOT NULL REFERENCES systems (uid) ON DELETE CASCADE,
  option_uid text NOT NULL REFERENCES options (uid) ON DELETE CASCADE,
  active boolean NOT NULL DEFAULT true,
  PRIMARY KEY (system_uid, option_uid)
);
CREATE INDEX system_options_option_idx ON system_options (option_uid) WHERE active;

-- Device logins: a gateway serial number or IMEI identifies one system across the whole service
-- (docs/devices.md: MQTT and REST usernames), so it may be used by one system only
-- (docs/api.md set C: system.communication.identifier.already.used).
CREATE TABLE comm_identifiers (
  identifier text PRIMARY KEY,
  system_uid text NOT NULL REFERENCES systems (uid) ON DELETE CASCADE
);
CREATE INDEX comm_identifiers_system_idx ON comm_identifiers (system_uid);
