-- LwM2M registrations (docs/protocols/lwm2m.md; OMA LwM2M Core §6.2.1 Register, §6.2.2 Update, §6.2.3 De-register):
-- one per system, the one its device made last (a new Register replaces the old one, as a restarted client's does).
-- `peer` is the transport's key of where the device registered from (a UDP address:port or a DTLS session); `secure`
-- whether that was DTLS, and `psk_identity` the identity the session proved. The registration ends when
-- `expires_at` (the last Register or Update plus its lifetime) passes without an Update: the lwm2m.expire job.
CREATE TABLE lwm2m_registrations (
  id text PRIMARY KEY,
  system_uid text NOT NULL UNIQUE REFERENCES systems (uid) ON DELETE CASCADE,
  endpoint text NOT NULL,
  lifetime_s bigint NOT NULL,
  binding text NOT NULL,
  queue_mode boolean NOT NULL,
  version text NOT NULL,
  object_links text NOT NULL,
  peer text NOT NULL,
  secure boolean NOT NULL,
  psk_identity text,
  registered_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  expires_at bigint NOT NULL
);

CREATE INDEX lwm2m_registrations_expires ON lwm2m_registrations (expires_at);

-- The PSK identity a DTLS handshake presents, when it is not the endpoint name (communication.lwm2m.pskIdentity).
CREATE INDEX systems_lwm2m_psk_identity ON systems ((communication -> 'lwm2m' ->> 'pskIdentity'))
  WHERE communication -> 'lwm2m' ->> 'pskIdentity' IS NOT NULL;
