-- Applications take the AirVantage application model (docs/api.md#applications-and-templates): `communication` lists
-- the protocols an application speaks, `data` becomes the tree of core/domain/application-model.ts. The rows move to
-- it, then the old `protocols` and `actions` columns go, so that one column holds each truth.
ALTER TABLE applications ADD COLUMN communication jsonb NOT NULL DEFAULT '[]';

-- Each protocol the application spoke becomes an entry logging in with the gateway serial number.
UPDATE applications SET communication = coalesce(
  (SELECT jsonb_agg(jsonb_build_object('type', t.p, 'commIdType', 'SERIAL') ORDER BY t.o) FROM unnest(protocols) WITH ORDINALITY AS t(p, o)),
  '[]'::jsonb);

-- Builds the tree from `[{p: [id segments], leaf: {...}}]`: one-segment items are leaves, the others are grouped
-- under a node named by their first segment, in the order each first appears. It calls itself, so its body is not
-- checked before it exists; it is dropped below.
SET LOCAL check_function_bodies = off;
CREATE FUNCTION fleet_0013_tree (items jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(jsonb_agg(e.el ORDER BY e.ord), '[]'::jsonb) FROM (
    SELECT i.o AS ord, (i.v -> 'leaf') || jsonb_build_object('id', i.v -> 'p' ->> 0) AS el
      FROM jsonb_array_elements(items) WITH ORDINALITY AS i(v, o) WHERE jsonb_array_length(i.v -> 'p') = 1
    UNION ALL
    SELECT min(i.o), jsonb_build_object('id', i.v -> 'p' ->> 0, 'elementType', 'node',
        'data', fleet_0013_tree(jsonb_agg(jsonb_build_object('p', (i.v -> 'p') - 0, 'leaf', i.v -> 'leaf') ORDER BY i.o)))
      FROM jsonb_array_elements(items) WITH ORDINALITY AS i(v, o) WHERE jsonb_array_length(i.v -> 'p') > 1
      GROUP BY i.v -> 'p' ->> 0
  ) e
$$;
SET LOCAL check_function_bodies = on;

-- Old data `{id, type, settable}` becomes a setting (settable) or a variable, old actions `{id, kind}` action leaves
-- with that actionType; a dotted id (`machine.temperature`) becomes nodes (`machine` holding `temperature`). A type
-- outside the model's list is left out; an empty id segment is named `_`.
UPDATE applications SET data = fleet_0013_tree(coalesce((
  SELECT jsonb_agg(jsonb_build_object('p', x.p, 'leaf', x.leaf) ORDER BY x.ord) FROM (
    SELECT d.o AS ord,
        (SELECT jsonb_agg(CASE WHEN u.s = '' THEN '_' ELSE u.s END ORDER BY u.n) FROM unnest(string_to_array(d.v ->> 'id', '.')) WITH ORDINALITY AS u(s, n)) AS p,
        jsonb_build_object(
          'elementType', CASE WHEN d.v ->> 'settable' = 'true' THEN 'setting' ELSE 'variable' END,
          'type', CASE WHEN d.v ->> 'type' IN ('int', 'double', 'boolean', 'string', 'date', 'binary') THEN d.v ->> 'type' END) AS leaf
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(data) = 'array' THEN data ELSE '[]'::jsonb END) WITH ORDINALITY AS d(v, o)
    UNION ALL
    SELECT 1000000000 + c.o,
        (SELECT jsonb_agg(CASE WHEN u.s = '' THEN '_' ELSE u.s END ORDER BY u.n) FROM unnest(string_to_array(c.v ->> 'id', '.')) WITH ORDINALITY AS u(s, n)),
        jsonb_build_object('elementType', 'action', 'actionType', c.v ->> 'kind')
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(actions) = 'array' THEN actions ELSE '[]'::jsonb END) WITH ORDINALITY AS c(v, o)
  ) x WHERE x.p IS NOT NULL), '[]'::jsonb));

DROP FUNCTION fleet_0013_tree (jsonb);
ALTER TABLE applications DROP COLUMN protocols;
ALTER TABLE applications DROP COLUMN actions;
