// world-atlas ships its TopoJSON files without types: the land of Natural Earth at 1:110m (console/src/lib/map.ts).
declare module 'world-atlas/land-110m.json' {
  import type { Topology } from 'topojson-specification'
  const land: Topology
  export default land
}
