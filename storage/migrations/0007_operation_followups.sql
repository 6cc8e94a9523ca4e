-- What follows an operation's FINISHED (its callback, its e-mail, the operations that depend on it) is queued after
-- the transaction that finishes it. The flag is set in that transaction and cleared once all of it is queued, so a
-- process that dies in between leaves a mark that recovery at the next start acts on
-- (docs/operations.md#bulk-operations).
ALTER TABLE operations ADD COLUMN followups_pending boolean NOT NULL DEFAULT false;
CREATE INDEX operations_followups_idx ON operations (uid) WHERE followups_pending;
