#!/usr/bin/env node
// Launcher of `npx fleet`: runs the TypeScript entry point through tsx's loader, so a fresh clone
// needs no build step (`npm install && npm start`).
import { register } from 'tsx/esm/api'

register()
await import('./fleet.ts')
