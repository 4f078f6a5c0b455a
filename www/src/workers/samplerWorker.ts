// The sampler view's Web Worker (the rates-FPCD paper, docs/algorithms.md §5): loads the wasm
// core, the MNIST asset and a model file, then runs every sampler round-robin in short slices
// (WasmSamplers) and posts each slice — its last sample, new 1-NN classes, ISL points — to the
// page. A generation number drops replies to a run the page has since stopped or replaced.
//
// A run asked for the GPU (`compute: 'gpu'`, issue 30) loads the GPU variant of the core
// (www/pkg-gpu) only then, opens the browser's GPU and runs WasmGpuSamplers there: each call
// records a block of samples and hands back a block the GPU has finished, never waiting for it.
// Where the GPU cannot be opened or is lost, the run starts again on the CPU and says why.
import * as cpuCore from '../../pkg/rbm_playground.js';
import type * as GpuCore from '../../pkg-gpu/rbm_playground.js';
import type { IslPoint, SamplerSlice, SelfTest } from '../generated/core';
import { isGzip } from '../protocol/data';
import type { FromSamplerWorker, ToSamplerWorker } from '../protocol/samplers';
import { gpuFallbackMessage } from '../views/samplerRows';
import { fetchBytes } from './dataLoad';
import { errorMessage } from './runner';
import { zeroDelayScheduler } from './yieldNow';

const ctx = self as unknown as {
  postMessage(msg: FromSamplerWorker, transfer?: Transferable[]): void;
  onmessage: ((e: MessageEvent<ToSamplerWorker>) => void) | null;
};

const yieldThen = zeroDelayScheduler();

type StartMsg = Extract<ToSamplerWorker, { type: 'start' }>;
type Slice = SamplerSlice & { grey: Float32Array; binary: Float32Array };
type Post = (m: FromSamplerWorker, transfer?: Transferable[]) => void;

/** What a build of the core (the CPU one or the GPU one) offers the loader. */
interface LoadCore {
  unpack(bytes: Uint8Array, what: string): Uint8Array;
  loadAsset(bytes: Uint8Array): unknown;
}

let gen = 0;
let assetLoaded: Promise<unknown> | null = null;
const ready = cpuCore.default();
/** The GPU variant of the core once a run asked for it, with the MNIST asset loaded in it. */
let gpuCore: Promise<typeof GpuCore> | null = null;
/** The current GPU run's samplers (for the loss test). */
let gpuRun: { gen: number; samplers: GpuCore.WasmGpuSamplers } | null = null;

async function bytesOf(core: LoadCore, url: string, what: string): Promise<Uint8Array> {
  const b = await fetchBytes(url, what, () => {});
  return isGzip(b) ? core.unpack(b, what) : b;
}

/** The GPU core with the digits loaded, and the adapter's name; throws where the browser has no
 * WebGPU or no adapter. */
async function openGpu(assetUrl: string): Promise<{ core: typeof GpuCore; adapter: string }> {
  if (!('gpu' in navigator) || !navigator.gpu) throw new Error('this browser offers no WebGPU');
  gpuCore ??= (async () => {
    const mod = await import('../../pkg-gpu/rbm_playground.js');
    await mod.default();
    mod.loadAsset(await bytesOf(mod, assetUrl, 'the MNIST digits'));
    return mod;
  })();
  gpuCore.catch(() => {
    gpuCore = null;
  });
  const core = await gpuCore;
  return { core, adapter: await core.gpuAdapter() };
}

async function start(msg: StartMsg): Promise<void> {
  const my = msg.gen;
  const post: Post = (m, transfer = []) => {
    if (my === gen) ctx.postMessage(m, transfer);
  };
  post({ type: 'status', gen: my, status: 'loading', message: 'loading the core, the digits and the model…' });
  if (msg.compute === 'gpu') {
    let why: string;
    try {
      const { core, adapter } = await openGpu(msg.assetUrl);
      if (my !== gen) return;
      const model = await bytesOf(core, msg.modelUrl, 'the model file');
      if (my !== gen) return;
      const samplers = new core.WasmGpuSamplers(model, msg.configs, 'mnist', 'mnist-test', 'mnist-valid', msg.seed);
      post({ type: 'device', gen: my, gpu: adapter, message: '' });
      post({ type: 'reference', gen: my, points: core.WasmSamplers.referenceIsl('mnist', 'mnist-test', 'mnist-valid') as IslPoint[] });
      post({ type: 'status', gen: my, status: 'running', message: `sampling on the GPU (WebGPU: ${adapter})…` });
      runGpu(msg, samplers, post, (e) => {
        if (my !== gen) return;
        post({ type: 'device', gen: my, gpu: null, message: gpuFallbackMessage(errorMessage(e), true) });
        startCpu(msg, post).catch((err: unknown) => post({ type: 'status', gen: my, status: 'error', message: errorMessage(err) }));
      });
      return;
    } catch (e) {
      why = errorMessage(e);
    }
    if (my !== gen) return;
    post({ type: 'device', gen: my, gpu: null, message: gpuFallbackMessage(why, false) });
  } else {
    post({ type: 'device', gen: my, gpu: null, message: '' });
  }
  await startCpu(msg, post);
}

/** The GPU run's loop: every sampler asked once a round; a round in which no block came back
 * waits a few milliseconds (the GPU is busy) rather than spinning. */
function runGpu(msg: StartMsg, samplers: GpuCore.WasmGpuSamplers, post: Post, lost: (e: unknown) => void): void {
  const my = msg.gen;
  gpuRun = { gen: my, samplers };
  const rows = msg.configs.length;
  const emitted = new Array<number>(rows).fill(0);
  const t0 = performance.now();
  const round = () => {
    if (my !== gen) {
      samplers.free();
      return;
    }
    let got = false;
    try {
      for (let row = 0; row < rows; row++) {
        if (emitted[row] >= msg.limit) continue;
        const out = samplers.step(row, msg.every, msg.limit) as Slice | null;
        if (!out) continue;
        got = true;
        emitted[row] = out.emitted;
        // The samplers share the GPU: each one's rate is over the run's time.
        post({ type: 'slice', gen: my, row, slice: out, seconds: (performance.now() - t0) / 1000 }, [out.grey.buffer, out.binary.buffer]);
      }
    } catch (e) {
      gpuRun = null;
      samplers.free();
      lost(e);
      return;
    }
    if (emitted.every((n) => n >= msg.limit)) {
      post({ type: 'status', gen: my, status: 'done', message: `${msg.limit.toLocaleString('en')} samples per sampler, on the GPU` });
      gpuRun = null;
      samplers.free();
      return;
    }
    if (got) yieldThen(round);
    else setTimeout(round, 2);
  };
  yieldThen(round);
}

async function startCpu(msg: StartMsg, post: Post): Promise<void> {
  const my = msg.gen;
  await ready;
  assetLoaded ??= bytesOf(cpuCore, msg.assetUrl, 'the MNIST digits').then((b) => cpuCore.loadAsset(b));
  await assetLoaded;
  const model = await bytesOf(cpuCore, msg.modelUrl, 'the model file');
  if (my !== gen) return;
  const samplers = new cpuCore.WasmSamplers(model, msg.configs, 'mnist', 'mnist-test', 'mnist-valid', msg.seed);
  post({ type: 'reference', gen: my, points: cpuCore.WasmSamplers.referenceIsl('mnist', 'mnist-test', 'mnist-valid') });
  post({ type: 'status', gen: my, status: 'running', message: '' });
  const rows = msg.configs.length;
  const elapsed = new Array<number>(rows).fill(0);
  let row = 0;
  const slice = () => {
    if (my !== gen) return;
    const t0 = performance.now();
    const out = samplers.step(row, msg.every) as Slice;
    elapsed[row] += performance.now() - t0;
    post({ type: 'slice', gen: my, row, slice: out, seconds: elapsed[row] / 1000 }, [out.grey.buffer, out.binary.buffer]);
    row = (row + 1) % rows;
    if (row === 0 && out.emitted >= msg.limit) {
      post({ type: 'status', gen: my, status: 'done', message: `${msg.limit.toLocaleString('en')} samples per sampler` });
      samplers.free();
      return;
    }
    yieldThen(slice);
  };
  yieldThen(slice);
}

ctx.onmessage = (e) => {
  const msg = e.data;
  if (msg.type === 'selftest') {
    ready
      .then(() =>
        ctx.postMessage({ type: 'selftest', id: msg.id, results: cpuCore.samplerSelfTest(msg.configs, msg.chains, msg.seed) as SelfTest[], error: null }),
      )
      .catch((err: unknown) => ctx.postMessage({ type: 'selftest', id: msg.id, results: null, error: errorMessage(err) }));
    return;
  }
  if (msg.type === 'loseGpu') {
    if (gpuRun?.gen === msg.gen) gpuRun.samplers.loseGpuForTest();
    return;
  }
  gen = msg.gen;
  if (msg.type === 'start') {
    start(msg).catch((err: unknown) => {
      if (msg.gen === gen) ctx.postMessage({ type: 'status', gen: msg.gen, status: 'error', message: errorMessage(err) });
    });
  }
};
