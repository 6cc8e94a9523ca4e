-- Daily rollups of the data points (docs/store.md#rollups  and its speed targets): one row per (system, data id, UTC
-- day) with the columns of data_rollups (0019_data_rollups.sql). A day, month or year bucket folds a whole day from
-- one row instead of 24: a month of daily max over 50 systems × 10 ids read 360,000 hourly rows (about 400 ms on
-- PostgreSQL, bench query), 15,000 daily ones here. Written in the ingest transaction with the points and their
-- hours (storage/repositories/rollups.sql.ts), so a row never disagrees with the committed points; a query uses a day
-- only when no bucket edge cuts it (storage/repositories/data-queries.repository.ts), the hours and raw points
-- answer the rest. No foreign key, as data_points: the systems repository deletes a system's rows with it.
CREATE TABLE data_rollups_daily (
  system_uid text NOT NULL,
  data_id text NOT NULL,
  day bigint NOT NULL,
  cnt bigint NOT NULL,
  n_num bigint NOT NULL,
  sum double precision NOT NULL,
  ss double precision NOT NULL,
  min double precision,
  max double precision,
  m2 double precision NOT NULL,
  wide boolean NOT NULL DEFAULT false,
  PRIMARY KEY (system_uid, data_id, day)
) WITH (fillfactor = 80);

-- The days of the hours stored before this migration, merged as Chan et al. do for k groups: the day's squared
-- deviations are each hour's m2 plus n·(the hour's mean − the day's mean)².
INSERT INTO data_rollups_daily (system_uid, data_id, day, cnt, n_num, sum, ss, min, max, m2, wide)
SELECT system_uid, data_id, day, sum(cnt), sum(n_num), sum(sum), sum(ss), min(min), max(max),
  coalesce(sum(m2), 0) + coalesce(sum(n_num::float8 * (sum / n_num - dm) ^ 2) FILTER (WHERE n_num > 0), 0),
  bool_or(wide)
FROM (SELECT r.*, r.hour - ((r.hour % 86400000) + 86400000) % 86400000 AS day,
        sum(r.sum) OVER w / nullif(sum(r.n_num) OVER w, 0)::float8 AS dm
      FROM data_rollups r
      WINDOW w AS (PARTITION BY r.system_uid, r.data_id, r.hour - ((r.hour % 86400000) + 86400000) % 86400000)) h
GROUP BY system_uid, data_id, day;

-- The increments of the ingest (docs/devices.md: the speed target): the transaction that stores points appends its
-- batch's hourly stats here, a plain insert into a table without index, instead of merging them into data_rollups
-- and data_rollups_daily itself, an upsert of two rows per (system, data id) of the batch, under the lock of each:
-- about a third of the store's work per message (bench ingest). The ingest folds them into both tables a moment later
-- (foldRollupDeltas in storage/repositories/rollups.sql.ts), in one transaction that deletes what it folds, so an
-- increment is always in exactly one place; aggregations add the increments not folded yet to the rows they read.
-- A process killed at any moment leaves them here, folded by the next fold.
CREATE TABLE data_rollup_deltas (
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
  wide boolean NOT NULL
);
