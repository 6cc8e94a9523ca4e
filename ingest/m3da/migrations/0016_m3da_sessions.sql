-- M3DA device state that must survive sessions and restarts (docs/protocols/m3da.md "Store nonces
-- persistently ... Update only after successful authentication"): the nonce the device's next authenticated envelope
-- must be signed with, and the counter of the tickets the service gives its tasks.
CREATE TABLE m3da_devices (
  system_uid text PRIMARY KEY REFERENCES systems (uid) ON DELETE CASCADE,
  nonce bytea,
  next_ticket integer NOT NULL DEFAULT 1,
  updated_at bigint NOT NULL
);

-- The ticket of each device task sent over M3DA (docs/protocols/m3da.md: the device answers a ticketed Message with a
-- Response of that ticket). A task sent again keeps its ticket, so the device can ignore the duplicate.
CREATE TABLE m3da_tickets (
  system_uid text NOT NULL REFERENCES systems (uid) ON DELETE CASCADE,
  ticket integer NOT NULL,
  task_uid text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (system_uid, ticket),
  UNIQUE (system_uid, task_uid)
);
