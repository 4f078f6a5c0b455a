// A lane's Web Worker: loads the wasm core and runs every computation of one lane (runner.ts).
import init, { lastPanic, panicForTest, WasmLane } from '../pkg/rbm_playground.js';
import type { FromWorker, ToWorker } from './protocol';
import { type Core, type CoreLane, errorMessage, type Host, LaneRunner } from './runner';

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

const core: Core = {
  newLane: (config, dataset) => new WasmLane(config, dataset) as unknown as CoreLane,
  lastPanic: () => lastPanic(),
  panicForTest: () => panicForTest(),
};

let runner: LaneRunner | null = null;
const early: ToWorker[] = [];
ctx.onmessage = (e) => (runner ? runner.handle(e.data) : early.push(e.data));

init()
  .then(() => {
    runner = new LaneRunner(core, host);
    for (const msg of early.splice(0)) runner.handle(msg);
  })
  .catch((e: unknown) => {
    const message = `the WebAssembly core did not load: ${errorMessage(e)}`;
    host.post({ type: 'status', gen: 0, status: 'fatal', message });
  });
