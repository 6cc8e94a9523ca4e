-- The operations alerts' actions started (docs/alerts.md#actions): the cooldown of an action per system and the
-- rule's maxOperationsPerHour are counted here, so that they hold across processes and restarts. A row is written
-- before its operation is created (claimed), and removed when the operation could not be started.
CREATE TABLE alert_actions (
  alert_uid text NOT NULL REFERENCES alerts (uid) ON DELETE CASCADE,
  -- The action's place in the rule's actions.
  action_index integer NOT NULL,
  rule_uid text NOT NULL REFERENCES alert_rules (uid) ON DELETE CASCADE,
  system_uid text NOT NULL,
  started_at bigint NOT NULL,
  operation_uid text,
  PRIMARY KEY (alert_uid, action_index)
);
-- The cooldown: the last start of one action of a rule on one system.
CREATE INDEX alert_actions_cooldown_idx ON alert_actions (rule_uid, action_index, system_uid, started_at);
-- The hour's budget: the rule's starts of the last hour.
CREATE INDEX alert_actions_rule_idx ON alert_actions (rule_uid, started_at);
