-- The systems a pinned alert rule can hold for, one row each (decision 0032, docs/alerts.md#how-rules-are-evaluated).
--
-- The candidates lookup found a company's rules by data id and kept a pinned one when its system_uids overlapped the
-- batch's systems: with 1,000 rules pinned one per device on one data id, every batch read all 1,000 rows and
-- compared each array with the batch's systems (bench alerts: about two thirds of the rules' cost on the ingest).
-- Here a pinned rule is found from the batch's systems through this table's primary key, and an unpinned one through
-- its own index; alert_rule_data_ids.system_uids stays what the evaluation is answered (the rule's whole list).
CREATE TABLE alert_rule_systems (
  system_uid text NOT NULL,
  rule_uid text NOT NULL REFERENCES alert_rules (uid) ON DELETE CASCADE,
  company_uid text NOT NULL,
  PRIMARY KEY (system_uid, rule_uid)
);
CREATE INDEX alert_rule_systems_rule_idx ON alert_rule_systems (rule_uid);

INSERT INTO alert_rule_systems (system_uid, rule_uid, company_uid)
  SELECT DISTINCT unnest(system_uids), rule_uid, company_uid FROM alert_rule_data_ids WHERE system_uids IS NOT NULL
  ON CONFLICT DO NOTHING;

-- The rules of a company and data id that are pinned to no system: what a batch finds besides its systems' own rules.
CREATE INDEX alert_rule_data_ids_unpinned_idx ON alert_rule_data_ids (company_uid, data_id) WHERE system_uids IS NULL;
