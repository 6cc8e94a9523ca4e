-- The state that device traffic changes, out of the systems row (docs/devices.md: "a narrow table for the state that
-- changes with every message instead of the wide, many-indexed systems row"). lastCommDate and commStatus change with
-- every message, ack and task poll, System data (data, data_ts) with most messages. On the systems row each of those
-- writes was an update of a wide row (labels, metadata, communication, reports...) under fourteen indexes, GIN ones
-- included, and last_comm_date being indexed made none of them a HOT update: a new row version and an entry in every
-- index each time, about 125 µs of PostgreSQL time per system written (bench ingest, bench reboot). Here the row is
-- narrow and only its key is indexed, so the same update is a HOT update in place (about a tenth of the cost).
--
-- One row per system, written with the system (storage/repositories/systems.repository.ts) and deleted with it. A
-- system inserted without one (SQL behind the repositories' back) reads as never communicating, and the first write
-- of its state creates the row (every writer upserts).
-- fillfactor: room on each page for the next version of its rows, which keeps the updates HOT.
CREATE TABLE system_state (
  system_uid text PRIMARY KEY REFERENCES systems (uid) ON DELETE CASCADE,
  last_comm_date bigint,
  comm_status text NOT NULL DEFAULT 'UNDEFINED',
  data jsonb NOT NULL DEFAULT '{}',
  data_ts jsonb NOT NULL DEFAULT '{}'
) WITH (fillfactor = 70);

INSERT INTO system_state (system_uid, last_comm_date, comm_status, data, data_ts)
SELECT uid, last_comm_date, comm_status, data, data_ts FROM systems;

-- The trigger of 0022 (a failed poll's commStatus is not lowered by the sweep) moves with the columns it reads.
DROP TRIGGER systems_keep_comm_failure ON systems;

-- Their indexes go with them: systems_company_comm_idx, systems_company_lastcomm_idx,
-- systems_company_lastcomm_desc_idx, systems_company_lifecycle_comm_idx. A find by commStatus or sorted by lastCommDate
-- reads the company's systems by their own indexes and their state by its key.
ALTER TABLE systems DROP COLUMN last_comm_date, DROP COLUMN comm_status, DROP COLUMN data, DROP COLUMN data_ts;

CREATE TRIGGER system_state_keep_comm_failure BEFORE UPDATE OF comm_status ON system_state
  FOR EACH ROW WHEN (NEW.comm_status IS DISTINCT FROM OLD.comm_status) EXECUTE FUNCTION keep_comm_failure();
