// The sampler view's Web Worker (the rates-FPCD paper, docs/algorithms.md §5): loads the wasm
// core, the MNIST asset and a model file, then runs every sampler round-robin in short slices
// (WasmSamplers) and posts each slice — its last sample, new 1-NN classes, ISL points — to the
// page. A generation number drops replies to a run the page has since stopped or replaced.
import init, { loadAsset, samplerSelfTest, unpack, WasmSamplers } from '../../pkg/rbm_playground.js';
import type { SamplerSlice, SelfTest } from '../generated/core';
import { isGzip } from '../protocol/data';
import type { FromSamplerWorker, ToSamplerWorker } from '../protocol/samplers';
import { fetchBytes } from './dataLoad';
import { errorMessage } from './runner';
import { zeroDelayScheduler } from './yieldNow';

const ctx = self as unknown as {
  postMessage(msg: FromSamplerWorker, transfer?: Transferable[]): void;
  onmessage: ((e: MessageEvent<ToSamplerWorker>) => void) | null;
};

const yieldThen = zeroDelayScheduler();

let gen = 0;
let assetLoaded: Promise<unknown> | null = null;
const ready = init();

async function bytesOf(url: string, what: string): Promise<Uint8Array> {
  const b = await fetchBytes(url, what, () => {});
  return isGzip(b) ? unpack(b, what) : b;
}

async function start(msg: Extract<ToSamplerWorker, { type: 'start' }>): Promise<void> {
  const my = msg.gen;
  const post = (m: FromSamplerWorker, transfer: Transferable[] = []) => {
    if (my === gen) ctx.postMessage(m, transfer);
  };
  post({ type: 'status', gen: my, status: 'loading', message: 'loading the core, the digits and the model…' });
  await ready;
  assetLoaded ??= bytesOf(msg.assetUrl, 'the MNIST digits').then((b) => loadAsset(b));
  await assetLoaded;
  const model = await bytesOf(msg.modelUrl, 'the model file');
  if (my !== gen) return;
  const samplers = new WasmSamplers(model, msg.configs, 'mnist', 'mnist-test', 'mnist-valid', msg.seed);
  post({ type: 'reference', gen: my, points: WasmSamplers.referenceIsl('mnist', 'mnist-test', 'mnist-valid') });
  post({ type: 'status', gen: my, status: 'running', message: '' });
  const rows = msg.configs.length;
  const elapsed = new Array<number>(rows).fill(0);
  let row = 0;
  const slice = () => {
    if (my !== gen) return;
    const t0 = performance.now();
    const out = samplers.step(row, msg.every) as SamplerSlice & { grey: Float32Array; binary: Float32Array };
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
      .then(() => ctx.postMessage({ type: 'selftest', id: msg.id, results: samplerSelfTest(msg.configs, msg.chains, msg.seed) as SelfTest[], error: null }))
      .catch((err: unknown) => ctx.postMessage({ type: 'selftest', id: msg.id, results: null, error: errorMessage(err) }));
    return;
  }
  gen = msg.gen;
  if (msg.type === 'start') {
    start(msg).catch((err: unknown) => {
      if (msg.gen === gen) ctx.postMessage({ type: 'status', gen: msg.gen, status: 'error', message: errorMessage(err) });
    });
  }
};
