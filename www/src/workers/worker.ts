// A lane's Web Worker: loads the wasm core and runs every computation of one lane (runner.ts),
// including loading its data (dataLoad.ts: download, unpack, parse — never on the page's thread).
// The page's exact-evaluation workers (evalPool.ts) are the same script, asked for runs of
// blocks of an enumeration (`logz`) and never given a lane; so are its trial workers
// (trialPool.ts), which run a study's trials one at a time (trialRunner.ts).
//
// A lane configured with `compute: 'gpu'` runs in the GPU variant of the core (www/pkg-gpu,
// the WebGPU engine), imported only then: the worker opens the browser's GPU, loads the lane's
// data into that module too, and builds the lane there. Where that fails (no WebGPU adapter,
// a refused device, an algorithm the page runs on the CPU only) the lane runs on the CPU and
// its card says why. A study's trial asked for the GPU (`trial` with `compute: 'gpu'`) is
// prepared the same way and built by the same `newLane`. A GPU study's AIS worker is this
// script too, sent `aisRequest`s (aisBatcher.ts): it loads the GPU core and opens the GPU on the
// first. A study's job worker is this script too, sent `studyJob` (studyJobRunner.ts): it loads
// the GPU core, opens the GPU and runs the trials of the study's lanes that one GPU job runs.
import * as cpuCore from '../../pkg/rbm_playground.js';
import init, { aisSeed, lastPanic, logZBlocks, panicForTest, trialSeed, WasmLane } from '../../pkg/rbm_playground.js';
import type * as GpuCore from '../../pkg-gpu/rbm_playground.js';
import type { LoadedSet } from '../generated/core';
import type { DataSource } from '../protocol/messages';
import { epochNow, type FromWorker, type ToWorker } from '../protocol/messages';
import { AisBatcher, type AisBatchRun } from './aisBatcher';
import { type DataCore, loadSource } from './dataLoad';
import { type Core, type CoreLane, errorMessage, type Host, LaneRunner } from './runner';
import { type CoreStudyJob, StudyJobRunner } from './studyJobRunner';
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

/** The data loading of a build of the core (the CPU one or the GPU one). */
function dataCoreOf(m: typeof cpuCore | typeof GpuCore): DataCore {
  return {
    unpack: (bytes, what) => m.unpack(bytes, what),
    checkIdx: (bytes, what) => m.checkIdx(bytes, what),
    loadAsset: (bytes) => m.loadAsset(bytes) as LoadedSet[],
    loadIdx: (name, images, labels) => m.loadIdx(name, images, labels) as LoadedSet,
    loadPatterns: (name, text) => m.loadPatterns(name, text) as LoadedSet,
  };
}

const dataCore = dataCoreOf(cpuCore);

/** Data loaded (or loading) in this worker's core, by source key: each is loaded once. */
const loads = new Map<string, Promise<LoadedSet[]>>();
const loaded = new Set<string>();

/** The GPU variant of the core, once a lane asked for it (null: not loaded). */
let gpuCore: typeof GpuCore | null = null;
/** Why the latest GPU lane runs on the CPU instead (shown with its notice). */
let gpuRefusal: string | null = null;
/** Why this worker's GPU failed, once it has: every later lane runs on the CPU. */
let gpuLost: string | null = null;
/** Data loaded in the GPU core, by source key. */
const gpuLoads = new Map<string, Promise<LoadedSet[]>>();

/** Loads the GPU core, opens the browser's GPU and loads `source` into it: the adapter's name. */
async function prepareGpu(source: DataSource | undefined): Promise<string> {
  if (gpuLost !== null) throw new Error(`the GPU failed earlier (${gpuLost})`);
  if (!('gpu' in navigator) || !navigator.gpu) throw new Error('this browser offers no WebGPU');
  if (!gpuCore) {
    const mod = await import('../../pkg-gpu/rbm_playground.js');
    await mod.default();
    gpuCore = mod;
  }
  const g = gpuCore;
  const adapter = await g.gpuAdapter();
  if (source) {
    let p = gpuLoads.get(source.key);
    if (!p) {
      p = loadSource(source, dataCoreOf(g), () => undefined);
      gpuLoads.set(source.key, p);
      p.catch(() => gpuLoads.delete(source.key));
    }
    await p;
  }
  return adapter;
}

/** A lane on the GPU core, or on the CPU (saying why) where it cannot run there. */
function newLane(config: Parameters<Core['newLane']>[0], dataset: string, gpu: boolean): CoreLane {
  if (gpu && gpuCore && gpuRefusal === null) {
    try {
      return gpuCore.newGpuLane(config, dataset) as unknown as CoreLane;
    } catch (e) {
      gpuRefusal = errorMessage(e);
    }
  }
  return new WasmLane(config, dataset) as unknown as CoreLane;
}

const core: Core = {
  newLane: (config, dataset, gpu) => newLane(config, dataset, gpu === true),
  gpuRefused: () => gpuRefusal,
  gpuFailed: (why) => {
    gpuLost = why;
  },
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
  newTrialLane: (config, dataset, gpu) => newLane(config, dataset, gpu === true) as unknown as TrialLane,
  trialSeed: (seed, trial) => trialSeed(seed, trial),
  aisSeed: (seed, k) => aisSeed(seed, k),
};

/** The study's AIS batches (this worker as a GPU study's AIS worker), or why it has no GPU. */
let aisService: Promise<AisBatcher | string> | null = null;
const aisSchedule = zeroDelayScheduler();

/** Handles a message to the study's AIS worker; false for any other. */
function aisMessage(msg: ToWorker): boolean {
  if (msg.type !== 'aisRequest' && msg.type !== 'aisCancel' && msg.type !== 'aisPause' && msg.type !== 'aisLoseGpu') return false;
  aisService ??= prepareGpu(undefined).then(
    () => {
      const g = gpuCore as typeof GpuCore;
      return new AisBatcher(
        { room: (m, n, p) => g.aisBatchRoom(m, n, p), newBatch: (p, b) => g.newAisBatch(p, b) as unknown as AisBatchRun },
        { post: host.post, now: host.now, schedule: (fn, ms) => (ms > 0 ? setTimeout(fn, ms) : aisSchedule(fn)) },
      );
    },
    (e: unknown) => `the study's AIS worker has no GPU (${errorMessage(e)})`,
  );
  // In order: each message's handler runs after the earlier ones'.
  void aisService.then((b) => {
    if (typeof b === 'string') {
      if (msg.type === 'aisRequest') host.post({ type: 'aisResult', key: msg.key, logWeights: null, error: b });
      return;
    }
    if (msg.type === 'aisRequest') b.add(msg.key, msg.request);
    else if (msg.type === 'aisCancel') b.cancel(msg.key);
    else if (msg.type === 'aisPause') b.pause(msg.paused);
    else b.loseGpuForTest();
  });
  return true;
}

let runner: LaneRunner | null = null;
let trials: TrialRunner | null = null;
/** The study's trials as one GPU job (this worker as a study's job worker). */
const studyJobs = new StudyJobRunner(
  {
    prepare: (source) => prepareGpu(source),
    newJob: (request) => new (gpuCore as typeof GpuCore).WasmStudyJob(request) as unknown as CoreStudyJob,
    lastPanic: () => gpuCore?.lastPanic() ?? null,
  },
  { ...host, schedule: zeroDelayScheduler(), later: (fn, ms) => setTimeout(fn, ms) },
);
const early: ToWorker[] = [];
const handle = (msg: ToWorker) => {
  if (aisMessage(msg)) return;
  if (studyJobs.handle(msg)) return;
  if (!trials?.handle(msg)) runner?.handle(msg);
};
/** Messages held while the GPU is prepared for a configuration (handled in order after). */
let held: ToWorker[] | null = null;
const receive = (msg: ToWorker) => {
  if (held) held.push(msg);
  else if ((msg.type === 'configure' || msg.type === 'trial') && msg.compute === 'gpu') {
    held = [];
    prepareGpu(msg.source)
      .then(
        () => {
          gpuRefusal = null;
        },
        (e: unknown) => {
          gpuRefusal = errorMessage(e);
        },
      )
      .finally(() => {
        const rest = held ?? [];
        held = null;
        handle(msg);
        for (const m of rest) receive(m);
      });
  } else handle(msg);
};
ctx.onmessage = (e) => {
  const msg = e.data;
  // The page's health check and its test hook, answered before (and without) the core.
  if (msg.type === 'ping') host.post({ type: 'pong', id: msg.id });
  else if (msg.type === 'exit') ctx.close();
  else if (runner) receive(msg);
  else early.push(msg);
};

init()
  .then(() => {
    runner = new LaneRunner(core, host);
    // Its own scheduler: a lane's and a trial's slices never replace each other's.
    trials = new TrialRunner(trialCore, { ...host, schedule: zeroDelayScheduler() });
    for (const msg of early.splice(0)) receive(msg);
  })
  .catch((e: unknown) => {
    const message = `the WebAssembly core did not load: ${errorMessage(e)}`;
    host.post({ type: 'status', gen: 0, status: 'fatal', message });
  });
