-- A version per company, bumped by every write of its alert rules (decision 0034, docs/alerts.md#how-rules-are-evaluated).
--
-- The ingest keeps each company's active rules in memory, indexed by data id and pinned system, and reads only this row
-- per batch: the lookup that sent every batch its rules' conditions again (bench alerts: about half of what 1,000
-- rules cost the ingest on PGlite) runs only when the version moved. A trigger rather than the repository bumps it, so
-- that no write path (a cascade from a deleted company or owner, a migration, a test's own SQL) can leave it behind.
-- No foreign key: the row of a company being deleted is bumped by the cascade that deletes its rules.
CREATE TABLE alert_rule_versions (
  company_uid text PRIMARY KEY,
  version bigint NOT NULL
);
-- The companies that already have rules: a company without a row is one that never had any.
INSERT INTO alert_rule_versions (company_uid, version) SELECT DISTINCT company_uid, 1 FROM alert_rules;

-- One line per statement list: the migration runner splits files on a semicolon that ends a line. An update bumps the
-- old and the new company (a rule moved to another in SQL: the service never moves one).
CREATE FUNCTION bump_alert_rule_version () RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO alert_rule_versions AS v (company_uid, version) SELECT DISTINCT c, 1 FROM unnest(CASE TG_OP WHEN 'INSERT' THEN ARRAY[NEW.company_uid] WHEN 'DELETE' THEN ARRAY[OLD.company_uid] ELSE ARRAY[OLD.company_uid, NEW.company_uid] END) AS c ON CONFLICT (company_uid) DO UPDATE SET version = v.version + 1; RETURN NULL; END
$$;

-- The rule's data ids and pinned systems are written with its row (storage/repositories/alert-rules.repository.ts);
-- their own tables bump it too, for a write of them alone.
CREATE TRIGGER alert_rules_version AFTER INSERT OR UPDATE OR DELETE ON alert_rules
  FOR EACH ROW EXECUTE FUNCTION bump_alert_rule_version();
CREATE TRIGGER alert_rule_data_ids_version AFTER INSERT OR UPDATE OR DELETE ON alert_rule_data_ids
  FOR EACH ROW EXECUTE FUNCTION bump_alert_rule_version();
CREATE TRIGGER alert_rule_systems_version AFTER INSERT OR UPDATE OR DELETE ON alert_rule_systems
  FOR EACH ROW EXECUTE FUNCTION bump_alert_rule_version();
