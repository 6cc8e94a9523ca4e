-- Device certificates and the companies' CAs (docs/security.md#device-certificates, decision 0030).
--
-- One table for both kinds, keyed by the certificate's SHA-256 fingerprint: a fingerprint is registered once across
-- the whole service, as one system's certificate or as one company's CA, and the primary key holds that even for
-- two registrations racing from two processes. A DEVICE row names its system and no company: the system's company
-- is the one that counts, so a transferred system keeps its certificates without a second copy of its owner to
-- keep in step. A CA row names its company and no system.
CREATE TABLE certificates (
  fingerprint text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('DEVICE', 'CA')),
  system_uid text REFERENCES systems (uid) ON DELETE CASCADE,
  company_uid text REFERENCES companies (uid) ON DELETE CASCADE,
  pem text NOT NULL,
  subject text NOT NULL,
  issuer text NOT NULL,
  not_before bigint NOT NULL,
  not_after bigint NOT NULL,
  status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'REVOKED')),
  -- CAs only: whether a certificate it signed for an unknown serial number creates a system, and how many it made.
  auto_register boolean NOT NULL DEFAULT false,
  auto_registered integer NOT NULL DEFAULT 0,
  created_at bigint NOT NULL,
  revoked_at bigint,
  CHECK ((kind = 'DEVICE') = (system_uid IS NOT NULL) AND (kind = 'CA') = (company_uid IS NOT NULL))
);
-- A system's certificates and a company's CAs, listed oldest first.
CREATE INDEX certificates_system_idx ON certificates (system_uid, created_at) WHERE kind = 'DEVICE';
CREATE INDEX certificates_company_idx ON certificates (company_uid, created_at) WHERE kind = 'CA';
