-- What the evaluation of alert rules in the ingest commit needs (decision 0032, docs/alerts.md#how-rules-are-evaluated).
--
-- The systems a rule is pinned to by a condition `system.id EQUALS x` or `system.id IN [...]`: a point of another
-- system can never make such a rule true, so the candidates lookup finds it only by those systems. Null: every system
-- of the company. Kept on each of the rule's data id rows, so that the lookup reads the one index it already reads.
ALTER TABLE alert_rule_data_ids ADD COLUMN system_uids text[];

-- An alert whose hooks, e-mails and actions are not delivered yet: set when it is raised in the commit, cleared by the
-- delivery. The sweep reads only these (a few rows among all the alerts ever raised), oldest first.
ALTER TABLE alerts ADD COLUMN notify_pending boolean NOT NULL DEFAULT false;
CREATE INDEX alerts_notify_pending_idx ON alerts (date) WHERE notify_pending;

-- At most one OPEN alert per rule and system: the alert states' conditional upsert already makes one transition one
-- alert; this holds it even against a writer that bypasses it, and the insert skips a second one instead of failing
-- the device's batch. The close of a rule's alert for a system (its transition to false) reads it too.
CREATE UNIQUE INDEX alerts_open_key ON alerts (rule_uid, system_uid) WHERE state = 'OPEN';
