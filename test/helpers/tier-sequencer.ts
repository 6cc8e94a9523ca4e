// The order `npm test` hands its files to the shared workers (vitest.config.ts; docs/decisions/0015-test-tiers.md).
// Vitest's own order runs the projects one after another by name (int, slow, store, store-servers, unit), so the
// slow tier's long files (a minute or two each) started after every int file and set the run's end while the other
// workers sat idle. Here the slow files alternate with the others from the start: the long ones begin early, at most
// about half of the workers run a slow file at once (each spawns services and devices), and the short unit and store
// files fill the end. Within a project, vitest's order stays (longest or largest first).
import { BaseSequencer, type TestSpecification } from 'vitest/node'

const LONG = 'slow'

export class TierSequencer extends BaseSequencer {
  override async sort (files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const slow = sorted.filter((f) => f.project.name === LONG)
    const rest = sorted.filter((f) => f.project.name !== LONG)
    const out: TestSpecification[] = []
    for (let i = 0; i < Math.max(slow.length, rest.length); i++) {
      const s = slow[i]
      const r = rest[i]
      if (s !== undefined) out.push(s)
      if (r !== undefined) out.push(r)
    }
    return out
  }
}
