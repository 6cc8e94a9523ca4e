-- Alert rules in the AirVantage v2 shape, their hooks, and the alerts they raise (docs/alerts.md, decision 0031).
--
-- A rule belongs to its company and runs under its owner's rights: the user who created it (null for an API client
-- with no user, and once that user is deleted). Its conditions, e-mails, actions and metadata are kept as the
-- client sent them (jsonb): only the service reads them, and always whole.
CREATE TABLE alert_rules (
  uid text PRIMARY KEY,
  company_uid text NOT NULL REFERENCES companies (uid) ON DELETE CASCADE,
  owner_uid text REFERENCES users (uid) ON DELETE SET NULL,
  name text NOT NULL,
  message text,
  stateful boolean NOT NULL DEFAULT true,
  active boolean NOT NULL DEFAULT true,
  emails jsonb NOT NULL DEFAULT '[]',
  notif_mode text,
  conditions jsonb NOT NULL,
  metadata jsonb,
  read_only boolean NOT NULL DEFAULT false,
  actions jsonb NOT NULL DEFAULT '[]',
  max_operations_per_hour integer NOT NULL DEFAULT 60,
  -- Checked by the periodic job rather than on ingest: it names no data id, or waits for a silence
  -- (NO_COMMUNICATION_FOR), which no incoming point can reveal.
  periodic boolean NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX alert_rules_company_idx ON alert_rules (company_uid, created_at);
CREATE INDEX alert_rules_periodic_idx ON alert_rules (company_uid) WHERE periodic AND active;

-- The data ids each rule names in its DATA.<id> attributes: an incoming point finds the rules it may change by its
-- company and data id in one index lookup, never by reading every rule (decision 0031). The company is repeated
-- here so that the lookup needs no join to narrow it.
CREATE TABLE alert_rule_data_ids (
  company_uid text NOT NULL,
  data_id text NOT NULL,
  rule_uid text NOT NULL REFERENCES alert_rules (uid) ON DELETE CASCADE,
  PRIMARY KEY (company_uid, data_id, rule_uid)
);
CREATE INDEX alert_rule_data_ids_rule_idx ON alert_rule_data_ids (rule_uid);

-- Where each alert of a rule is POSTed (docs/alerts.md#hooks), signed with CALLBACK_SECRET as operation callbacks are.
CREATE TABLE alert_rule_hooks (
  uid text PRIMARY KEY,
  rule_uid text NOT NULL REFERENCES alert_rules (uid) ON DELETE CASCADE,
  callback text NOT NULL,
  created_at bigint NOT NULL
);
CREATE INDEX alert_rule_hooks_rule_idx ON alert_rule_hooks (rule_uid, created_at);

-- The alerts rules raise, and each stateful rule's state per system (written by the evaluation, docs/alerts.md).
CREATE TABLE alerts (
  uid text PRIMARY KEY,
  rule_uid text NOT NULL REFERENCES alert_rules (uid) ON DELETE CASCADE,
  system_uid text NOT NULL REFERENCES systems (uid) ON DELETE CASCADE,
  company_uid text NOT NULL REFERENCES companies (uid) ON DELETE CASCADE,
  date bigint NOT NULL,
  closed_date bigint,
  state text NOT NULL DEFAULT 'OPEN' CHECK (state IN ('OPEN', 'CLOSED')),
  acknowledged boolean NOT NULL DEFAULT false,
  acknowledged_by text,
  attributes jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX alerts_company_idx ON alerts (company_uid, date);
CREATE INDEX alerts_rule_system_idx ON alerts (rule_uid, system_uid, date);

CREATE TABLE alert_states (
  rule_uid text NOT NULL REFERENCES alert_rules (uid) ON DELETE CASCADE,
  system_uid text NOT NULL REFERENCES systems (uid) ON DELETE CASCADE,
  state boolean NOT NULL,
  changed_at bigint NOT NULL,
  PRIMARY KEY (rule_uid, system_uid)
);
