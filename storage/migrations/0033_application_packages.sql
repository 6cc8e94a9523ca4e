-- Applications released from packages (docs/packages.md#release-and-publish): their life (RELEASED, PUBLISHED,
-- DEPRECATED), who released them, the device-side update path that installs them, and their binaries (the bytes are
-- in the artifact store, under `artifact`).
-- The applications that exist already (seeded public ones, those made with POST /applications) become PUBLISHED, as
-- of their creation: clients install only a PUBLISHED application, and these were installable before.
ALTER TABLE applications ADD COLUMN state text NOT NULL DEFAULT 'PUBLISHED' CHECK (state IN ('RELEASED', 'PUBLISHED', 'DEPRECATED'));
ALTER TABLE applications ADD COLUMN released bigint;
ALTER TABLE applications ADD COLUMN published bigint;
-- The releasing user; no foreign key: deleting the user keeps the application (its owner's name is then unknown).
ALTER TABLE applications ADD COLUMN owner_uid text;
ALTER TABLE applications ADD COLUMN application_manager text;
UPDATE applications SET published = created_at;

CREATE TABLE application_binaries (
  application_uid text NOT NULL REFERENCES applications (uid) ON DELETE CASCADE,
  -- The order the model declares them in.
  position integer NOT NULL,
  file text NOT NULL,
  revision text,
  type text,
  size bigint NOT NULL,
  sha256 text NOT NULL,
  md5 text NOT NULL,
  artifact text NOT NULL,
  PRIMARY KEY (application_uid, file)
);
-- Whether any application still needs an artifact (deleting an application deletes the artifacts no other one uses).
CREATE INDEX application_binaries_artifact_idx ON application_binaries (artifact);
-- Whether an open operation names an application (an application being installed cannot be deleted).
CREATE INDEX operations_open_application_idx ON operations ((parameters ->> 'application')) WHERE state <> 'FINISHED';
