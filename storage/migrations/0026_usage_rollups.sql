-- Daily rollups of the usage data ids (docs/store.md#rollups: "Usage data ids get the same treatment"; docs/usage.md;
-- docs/devices.md). One row per (system, usage data id, UTC day) holding what the folding functions need of the points
-- that day: each usage record of the series' type is one point, dated by its start or, for the INVOICED_ counters, by
-- its end processing date, valued as storage/repositories/usage-points.sql.ts says (the session counters 1 on a
-- session's first record only). Aggregated and fleet queries fold the days that no bucket edge cuts and read the
-- records of the cut days only (storage/repositories/usage-aggregate.sql.ts).
--
-- n counts the points with a value; sum, ss (sum of squares), min and max fold those values. Every column is exact
-- (int8, numeric: the counters are whole numbers, durations seconds with three decimals), so increments add up to
-- the same digits in any order and the deviation comes exactly from n, sum and ss: no m2 column as data_rollups
-- has, which keeps float8 sums from cancelling. A day with points but no value (records of a session after its
-- first, a counter left empty) keeps its row with n = 0: the raw path answers such a bucket, and cannot tell it from
-- nothing in a fleet's cnt or mean over systems otherwise.
--
-- Written in the transaction that stores the records (storage/repositories/usage.repository.ts insert, through
-- usage-rollups.sql.ts), which locks the records' systems first: a session's first record can only be known with
-- the imports of the same system in sequence. Deleted with the system (its records go the same way).
CREATE TABLE usage_rollups (
  system_uid text NOT NULL REFERENCES systems (uid) ON DELETE CASCADE,
  data_id text NOT NULL,
  day bigint NOT NULL,
  n bigint NOT NULL,
  sum numeric NOT NULL,
  ss numeric NOT NULL,
  min numeric,
  max numeric,
  PRIMARY KEY (system_uid, data_id, day)
) WITH (fillfactor = 80);
-- fillfactor: the row of the day being imported is updated by every chunk of an import; room keeps those updates HOT.

-- A session's first record (the session counters' one point with a value) in one look, in the order it is picked:
-- the rollups' increments ask it of every session an import touches, and the raw fold of every record. It replaces
-- 0018's (system_uid, uid), its prefix, which the record detail reads as well. With only that one, PGlite (which runs
-- no autovacuum, so never has statistics) read every record of the system's type for each session. PostgreSQL picks
-- it once its autovacuum has analyzed usage_records (before that, within its first minute, a fresh store may not).
DROP INDEX IF EXISTS usage_records_system_uid_idx;
CREATE INDEX usage_records_session_idx ON usage_records (system_uid, uid, type, start_ts, id);

-- The records of the days a range edge cuts, for the INVOICED_ counters: their date is this expression, which no
-- index of 0005 or 0018 serves (the start-dated counters read usage_records_system_type_start_idx).
CREATE INDEX usage_records_system_type_invoiced_idx ON usage_records (system_uid, type, (coalesce(processed_at, end_ts, start_ts)));

-- The records stored before this migration: the rows rebuildUsageRollups() of storage/repositories/usage-rollups.sql.ts
-- writes, in one statement over a table of the series (test/slow/property/usage-rollups-property.test.ts runs it
-- again and checks that it writes what the increments of the imports wrote).
INSERT INTO usage_rollups (system_uid, data_id, day, n, sum, ss, min, max)
SELECT p.system_uid, p.data_id, p.ts - ((p.ts % 86400000) + 86400000) % 86400000 AS day, count(p.num),
  coalesce(sum(p.num), 0), coalesce(sum(p.num * p.num), 0), min(p.num), max(p.num)
FROM (
  SELECT r.system_uid, s.data_id, CASE WHEN s.invoiced THEN coalesce(r.processed_at, r.end_ts, r.start_ts) ELSE r.start_ts END AS ts,
    CASE s.measure
      WHEN 'session' THEN CASE WHEN NOT EXISTS (SELECT 1 FROM usage_records e WHERE e.system_uid = r.system_uid AND e.uid = r.uid
        AND e.type = r.type AND (e.start_ts < r.start_ts OR (e.start_ts = r.start_ts AND e.id < r.id))) THEN 1 END
      WHEN 'count' THEN 1
      WHEN 'duration' THEN (coalesce(r.end_ts, r.start_ts) - r.start_ts) / 1000.0
      WHEN 'roundedDuration' THEN r.rounded_duration
      WHEN 'bytesSent' THEN r.bytes_sent
      WHEN 'bytesReceived' THEN r.bytes_received
      WHEN 'bytesTotal' THEN r.bytes_total
      WHEN 'roundedBytesTotal' THEN r.rounded_bytes_total
    END::numeric AS num
  FROM usage_records r
  -- core/domain/aggregation.ts USAGE_DATA_IDS: the series of each record type.
  JOIN (VALUES
    ('DATA_SESSION', 'DATA', 'session', false),
    ('DATA_DURATION', 'DATA', 'duration', false),
    ('DATA_BYTES_SENT', 'DATA', 'bytesSent', false),
    ('DATA_BYTES_RECEIVED', 'DATA', 'bytesReceived', false),
    ('DATA_BYTES_TOTAL', 'DATA', 'bytesTotal', false),
    ('INVOICED_DATA_BYTES_TOTAL', 'DATA', 'roundedBytesTotal', true),
    ('VOICE_IN_SESSION', 'VOICE_IN', 'session', false),
    ('VOICE_IN_DURATION', 'VOICE_IN', 'duration', false),
    ('INVOICED_VOICE_IN_DURATION', 'VOICE_IN', 'roundedDuration', true),
    ('VOICE_OUT_SESSION', 'VOICE_OUT', 'session', false),
    ('VOICE_OUT_DURATION', 'VOICE_OUT', 'duration', false),
    ('INVOICED_VOICE_OUT_DURATION', 'VOICE_OUT', 'roundedDuration', true),
    ('SMS_SENT', 'SMS_SENT', 'count', false),
    ('INVOICED_SMS_SENT', 'SMS_SENT', 'count', true),
    ('SMS_RECEIVED', 'SMS_RECEIVED', 'count', false),
    ('INVOICED_SMS_RECEIVED', 'SMS_RECEIVED', 'count', true),
    ('MSU', 'MSU', 'count', false),
    ('INVOICED_MSU', 'MSU', 'count', true)
  ) AS s (data_id, type, measure, invoiced) ON s.type = r.type
) p
GROUP BY 1, 2, 3;
