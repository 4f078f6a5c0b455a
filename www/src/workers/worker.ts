// A lane's Web Worker: loads the wasm core and runs every computation of one lane (runner.ts),
// including loading its data (dataLoad.ts: download, unpack, parse — never on the page's thread).
// The page's exact-evaluation workers (evalPool.ts) are the same script, asked for runs of
// blocks of an enumeration (`logz`) and never given a lane; so are its trial workers
// (trialPool.ts), which run a study's trials one at a time (trialRunner.ts).
import init, { lastPanic, loadAsset, loadIdx, loadPatterns, logZBlocks, panicForTest, trialSeed, unpack, WasmLane } from '../../pkg/rbm_playground.js';
import type { LoadedSet } from '../generated/core';
import { epochNow, type FromWorker, type ToWorker } from '../protocol/messages';
import { type DataCore, loadSource } from './dataLoad';
import { type Core, type CoreLane, errorMessage, type Host, LaneRunner } from './runner';
import { type TrialCore, type TrialLane, TrialRunner } from './trialRunner';
import { zeroDelayScheduler } from './yieldNow';

const ctx = self as unknown as {
  postMessage(msg: FromWorker, transfer: Transferable[]): void;
  onmessage: ((e: MessageEvent<ToWorker>) => void) | null;
  close(): void;
};

const host: Host = {
  post: (msg, transfer = []) => ctx.postMessage(msg.type === 'status' ? { ...msg, at: epochNow() } : msg, transfer),
  now: () => performance.now(),
  schedule: zeroDelayScheduler(),
};

const dataCore: DataCore = {
  unpack: (bytes, what) => unpack(bytes, what),
  loadAsset: (bytes) => loadAsset(bytes) as LoadedSet[],
  loadIdx: (name, images, labels) => loadIdx(name, images, labels) as LoadedSet,
  loadPatterns: (name, text) => loadPatterns(name, text) as LoadedSet,
};

/** Data loaded (or loading) in this worker's core, by source key: each is loaded once. */
const loads = new Map<string, Promise<LoadedSet[]>>();
const loaded = new Set<string>();

const core: Core = {
  newLane: (config, dataset) => new WasmLane(config, dataset) as unknown as CoreLane,
  resumeLane: (config, dataset, bytes, recorded) => WasmLane.resume(config, dataset, bytes, recorded) as unknown as CoreLane,
  lastPanic: () => lastPanic(),
  panicForTest: () => panicForTest(),
  hasData: (key) => loaded.has(key),
  logZBlocks: (model, from, to) => logZBlocks(model, from, to),
  loadData: (source, progress) => {
    let p = loads.get(source.key);
    if (!p) {
      p = loadSource(source, dataCore, progress);
      loads.set(source.key, p);
      p.then(
        () => loaded.add(source.key),
        () => loads.delete(source.key), // a later configuration may try again
      );
    }
    return p;
  },
};

const trialCore: TrialCore = {
  ...core,
  newTrialLane: (config, dataset) => new WasmLane(config, dataset) as unknown as TrialLane,
  trialSeed: (seed, trial) => trialSeed(seed, trial),
};

let runner: LaneRunner | null = null;
let trials: TrialRunner | null = null;
const early: ToWorker[] = [];
const handle = (msg: ToWorker) => {
  if (!trials?.handle(msg)) runner?.handle(msg);
};
ctx.onmessage = (e) => {
  const msg = e.data;
  // The page's health check and its test hook, answered before (and without) the core.
  if (msg.type === 'ping') host.post({ type: 'pong', id: msg.id });
  else if (msg.type === 'exit') ctx.close();
  else if (runner) handle(msg);
  else early.push(msg);
};

init()
  .then(() => {
    runner = new LaneRunner(core, host);
    // Its own scheduler: a lane's and a trial's slices never replace each other's.
    trials = new TrialRunner(trialCore, { ...host, schedule: zeroDelayScheduler() });
    for (const msg of early.splice(0)) handle(msg);
  })
  .catch((e: unknown) => {
    const message = `the WebAssembly core did not load: ${errorMessage(e)}`;
    host.post({ type: 'status', gen: 0, status: 'fatal', message });
  });
