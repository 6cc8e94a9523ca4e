-- Released binaries and their download links (docs/packages.md#downloads).

-- The artifact store in the database (ARTIFACT_STORE=database, docs/decisions/0025-artifact-store.md): an artifact is
-- the row below once complete, its bytes the chunks under its key. Chunks are written under a `partial:` key while the
-- bytes arrive and take the artifact's key (its SHA-256, known only at the end) in the transaction that adds the row.
CREATE TABLE artifacts (
  key text PRIMARY KEY,
  size bigint NOT NULL,
  sha256 text NOT NULL,
  md5 text NOT NULL,
  -- Every chunk but the last holds this many bytes: a range reads only the chunks it covers.
  chunk_size integer NOT NULL,
  created_at bigint NOT NULL
);
CREATE TABLE artifact_chunks (
  key text NOT NULL,
  n integer NOT NULL,
  bytes bytea NOT NULL,
  PRIMARY KEY (key, n)
);
-- Binaries rarely compress: stored out of line uncompressed, they cost no compression attempt, and a range's first and
-- last chunks are read as slices.
ALTER TABLE artifact_chunks ALTER COLUMN bytes SET STORAGE EXTERNAL;

-- One link per install task and binary: the token itself is never stored, only its SHA-256 (a copy of the table gives
-- nobody a working link). A link dies with its system and with its operation's task.
CREATE TABLE package_downloads (
  token_sha256 text PRIMARY KEY,
  system_uid text NOT NULL REFERENCES systems (uid) ON DELETE CASCADE,
  task_uid text NOT NULL REFERENCES operation_tasks (uid) ON DELETE CASCADE,
  artifact text NOT NULL,
  file text NOT NULL,
  size bigint NOT NULL,
  expires_at bigint NOT NULL,
  created_at bigint NOT NULL,
  bytes_served bigint NOT NULL DEFAULT 0,
  first_download_at bigint,
  last_download_at bigint
);
CREATE INDEX package_downloads_task_idx ON package_downloads (task_uid);
CREATE INDEX package_downloads_system_idx ON package_downloads (system_uid);
