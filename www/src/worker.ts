// A lane's Web Worker: loads the wasm core and runs every computation of one lane.
import init, { WasmLane, algorithms, dataSets, defaultConfig, presets } from '../pkg/rbm_playground.js';
import { LaneRunner, errorMessage, type Core, type CoreLane, type Host } from './runner';
import type { FromWorker, ToWorker } from './protocol';
import type { Catalog } from './types';

const ctx = self as unknown as {
  postMessage(msg: FromWorker, transfer: Transferable[]): void;
  onmessage: ((e: MessageEvent<ToWorker>) => void) | null;
};

// Zero-delay yields through a MessageChannel (nested setTimeout is clamped to 4 ms), so the
// page's pause or reset is handled between two slices.
const channel = new MessageChannel();
let next: (() => void) | null = null;
channel.port1.onmessage = () => {
  const fn = next;
  next = null;
  fn?.();
};

const host: Host = {
  post: (msg, transfer = []) => ctx.postMessage(msg, transfer),
  now: () => performance.now(),
  schedule: (fn) => {
    next = fn;
    channel.port2.postMessage(0);
  },
};

let catalog: Catalog | null = null;
const core: Core = {
  catalog: () => (catalog ??= { algorithms: algorithms(), dataSets: dataSets(), defaults: defaultConfig(), presets: presets() }),
  newLane: (config, dataset) => new WasmLane(config, dataset) as unknown as CoreLane,
};

let runner: LaneRunner | null = null;
const early: ToWorker[] = [];
ctx.onmessage = (e) => (runner ? runner.handle(e.data) : early.push(e.data));

init()
  .then(() => {
    runner = new LaneRunner(core, host);
    host.post({ type: 'ready', catalog: core.catalog() });
    for (const msg of early.splice(0)) runner.handle(msg);
  })
  .catch((e: unknown) => host.post({ type: 'fatal', message: `the WebAssembly core did not load: ${errorMessage(e)}` }));
