-- Points partitioned by time (docs/store.md#points-partitions-and-retention; docs/architecture.md#how-data-flows:
-- points are partitioned by month and can expire). data_points becomes a declarative partitioned table, PARTITION BY
-- RANGE (ts), one partition per UTC calendar month (bounds in epoch ms) plus a DEFAULT partition, so that a point of
-- any timestamp (devices with clocks in 1970 or 2100) is always stored.
--
-- The table as it was becomes the DEFAULT partition, rows and indexes included: no row is copied here, so the
-- migration takes the same short time on a store of any size. The monthly partitions are created by the repeatable
-- job points.partitions (core/services/data/point-partitions.service.ts), which moves every month the default
-- partition holds into a partition of its own, one month per transaction, in the background.
-- Migrations hold no dynamic SQL (storage/migrate.ts splits on semicolons), so partition names cannot be computed here.

ALTER TABLE data_points RENAME TO data_points_default;
ALTER INDEX data_points_series_idx RENAME TO data_points_default_series_idx;
ALTER INDEX data_points_message_idx RENAME TO data_points_default_message_idx;

-- LIKE: the columns as the earlier migrations left them, NOT NULL included.
CREATE TABLE data_points (LIKE data_points_default) PARTITION BY RANGE (ts);
ALTER TABLE data_points ATTACH PARTITION data_points_default DEFAULT;

-- Indexes of a partitioned table: each partition gets its own; the default partition's existing ones are attached
-- (they match), not built again. The names stay those of 0005 (bench/query.ts drops and rebuilds them by name).
CREATE INDEX data_points_series_idx ON data_points (system_uid, data_id, ts DESC);
CREATE INDEX data_points_message_idx ON data_points (message_uid);
