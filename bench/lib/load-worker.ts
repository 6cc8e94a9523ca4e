// Entry of the load worker thread (bench/lib/load.ts runLoadInWorker).
import { parentPort, workerData } from 'node:worker_threads'
import { runLoad, type LoadOptions } from './load.js'

const result = await runLoad(workerData as LoadOptions)
parentPort?.postMessage(result)
