-- MSCI polling of AirLink gateways (docs/protocols/msci.md): one row per system with
-- communication.msci.host set, holding when it is next polled. A poll is claimed with FOR UPDATE SKIP LOCKED and
-- held under a lease (locked_until, locked_by), so each gateway is polled once at a time across every process;
-- `failures` counts the polls failed in a row (commStatus WARNING, then ERROR, and the backoff).
CREATE TABLE msci_polls (
  system_uid text PRIMARY KEY REFERENCES systems (uid) ON DELETE CASCADE,
  next_poll_at bigint NOT NULL,
  locked_until bigint,
  locked_by text,
  failures integer NOT NULL DEFAULT 0,
  last_poll_at bigint,
  last_success_at bigint
);
CREATE INDEX msci_polls_due_idx ON msci_polls (next_poll_at);

-- The systems to poll, found without reading every system (the rows above are kept in step with them).
CREATE INDEX systems_msci_host_idx ON systems (uid) WHERE coalesce(communication #>> '{msci,host}', '') <> '';

-- Device tasks waiting for an MSCI gateway: their systems are polled at once rather than at their next period.
CREATE INDEX device_tasks_msci_pending_idx ON device_tasks (system_uid) WHERE protocol = 'MSCI' AND state = 'PENDING';

-- A failed poll marks its system (commStatus WARNING or ERROR, data.lastCommFailureDate). The periodic commStatus
-- sweep judges by lastCommDate alone and would set such a system back to OK while its last communication is recent:
-- while the last failure is newer than the last communication, commStatus is never lowered. A communication
-- (lastCommDate moving past the failure) lowers it as before.
CREATE FUNCTION comm_status_rank (s text) RETURNS int LANGUAGE sql IMMUTABLE AS
  $$ SELECT CASE s WHEN 'OK' THEN 1 WHEN 'WARNING' THEN 2 WHEN 'ERROR' THEN 3 ELSE 0 END $$;

-- (One line per statement inside the body: storage/migrate.ts splits the file at a ';' that ends a line.)
CREATE FUNCTION keep_comm_failure () RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF jsonb_typeof(NEW.data -> 'lastCommFailureDate') = 'number' AND (NEW.data ->> 'lastCommFailureDate')::numeric > coalesce(NEW.last_comm_date, 0) AND comm_status_rank(NEW.comm_status) < comm_status_rank(OLD.comm_status) THEN NEW.comm_status := OLD.comm_status; END IF; RETURN NEW; END
$$;

CREATE TRIGGER systems_keep_comm_failure BEFORE UPDATE OF comm_status ON systems
  FOR EACH ROW WHEN (NEW.comm_status IS DISTINCT FROM OLD.comm_status) EXECUTE FUNCTION keep_comm_failure();
