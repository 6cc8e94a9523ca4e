/** A seed document the service cannot apply: one line for the user (README.md#seed-file); nothing was written. */
export class SeedError extends Error {
  constructor (message: string) { super(message); this.name = 'SeedError' }
}
