-- Hourly rollups of the data points (docs/store.md#rollups; docs/architecture.md#how-data-flows, Queries): one row per
-- (system, data id, UTC hour) holding what the folding functions of docs/devices.md need, so that aggregated
-- and fleet queries fold hours instead of points. Written in the ingest transaction with the points themselves
-- (storage/repositories/rollups.sql.ts), so a row never disagrees with the committed points.
--
-- cnt counts the present values (numbers, booleans and strings); the other columns fold the numeric values only
-- (booleans are 1/0): n_num of them, their sum, sum of squares, min, max and m2, the sum of squared deviations from
-- their mean (sum / n_num), which Chan's parallel algorithm merges without the cancellation of ss - sum²/n.
-- A value of magnitude 1e100 or more would let sums of squares overflow float8 (an error in PostgreSQL): such a
-- value is left out of the numeric columns and marks the hour `wide`, and a query touching a wide hour reads the raw
-- points instead (storage/repositories/data-queries.repository.ts). No foreign key, as data_points: the systems
-- repository deletes a system's rollups with its points. Retention of raw points leaves the rollups in place.
CREATE TABLE data_rollups (
  system_uid text NOT NULL,
  data_id text NOT NULL,
  hour bigint NOT NULL,
  cnt bigint NOT NULL,
  n_num bigint NOT NULL,
  sum double precision NOT NULL,
  ss double precision NOT NULL,
  min double precision,
  max double precision,
  m2 double precision NOT NULL,
  wide boolean NOT NULL DEFAULT false,
  PRIMARY KEY (system_uid, data_id, hour)
) WITH (fillfactor = 80);
-- fillfactor: the row of the current hour is updated by every ingest batch; room on its page keeps those updates HOT.

-- The query's one look for wide hours in its range: this index holds none in practice.
CREATE INDEX data_rollups_wide_idx ON data_rollups (system_uid, data_id, hour) WHERE wide;

-- The points stored before this migration.
INSERT INTO data_rollups (system_uid, data_id, hour, cnt, n_num, sum, ss, min, max, m2, wide)
SELECT system_uid, data_id, hour,
  count(*) FILTER (WHERE num IS NOT NULL OR str IS NOT NULL),
  count(num) FILTER (WHERE abs(num) < 1e100),
  coalesce(sum(num) FILTER (WHERE abs(num) < 1e100), 0),
  coalesce(sum(num * num) FILTER (WHERE abs(num) < 1e100), 0),
  min(num) FILTER (WHERE abs(num) < 1e100),
  max(num) FILTER (WHERE abs(num) < 1e100),
  coalesce(var_pop(num) FILTER (WHERE abs(num) < 1e100) * count(num) FILTER (WHERE abs(num) < 1e100), 0),
  coalesce(bool_or(abs(num) >= 1e100), false)
FROM (SELECT system_uid, data_id, ts - ((ts % 3600000) + 3600000) % 3600000 AS hour, num, str FROM data_points) p
GROUP BY system_uid, data_id, hour;
