import { beforeEach, describe, expect, it } from 'vitest';
import type { FromWorker } from '../src/protocol';
import { LaneRunner, type Core, type CoreLane, type Host } from '../src/runner';
import type { CoreConfig, CoreRecord, RunResult } from '../src/types';

/** A fake lane: ATLL rises by 0.01 per update; diverges at `divergeAt` if set. */
class FakeLane implements CoreLane {
  iter = 0;
  sent0 = false;
  freed = false;
  readonly visible = 4;
  readonly hidden = 2;
  constructor(readonly seed: string, private readonly every: number, private readonly divergeAt: number | null) {}
  private record(): CoreRecord {
    return { iter: this.iter, sweeps: this.iter, vh_steps: this.iter, atll: -10 + 0.01 * this.iter, log_z: 1, stats: { mean_tau: 2.5 } };
  }
  run(updates: number): RunResult {
    clock += 0.05 * updates; // 50 µs per update
    const records: CoreRecord[] = [];
    if (!this.sent0) {
      records.push(this.record());
      this.sent0 = true;
    }
    for (let i = 0; i < updates; i++) {
      if (this.divergeAt !== null && this.iter + 1 >= this.divergeAt) {
        const error = `training diverged at update ${this.iter + 1}`;
        return { records, iter: this.iter, seed: this.seed, error, failed: true };
      }
      this.iter++;
      if (this.iter % this.every === 0) records.push(this.record());
    }
    return { records, iter: this.iter, seed: this.seed, error: null, failed: false };
  }
  distribution() {
    return { model: [0.25, 0.25], data: [0.5, 0.5], off: 0.5, log_z: 1 };
  }
  weights() {
    return new Float32Array(this.visible * this.hidden).fill(this.iter);
  }
  chains() {
    return new Float32Array([1, 0, 1, 0, 0, 1, 0, 1]);
  }
  exportModel() {
    return `{"iter":${this.iter}}`;
  }
  free() {
    this.freed = true;
  }
}

const core: Core & { lanes: FakeLane[] } = {
  lanes: [],
  catalog: () => ({ algorithms: [], dataSets: [], defaults: {}, presets: [] }),
  newLane(config: CoreConfig) {
    if (typeof config.lr !== 'number' || config.lr < 0) throw new Error(`invalid input: the learning rate must be a finite number ≥ 0, got ${config.lr}`);
    const lane = new FakeLane(String(config.seed), Number(config.every ?? 10), config.lr > 1e30 ? 7 : null);
    this.lanes.push(lane);
    return lane;
  },
};

let sent: FromWorker[];
let tasks: (() => void)[];
let clock: number;
let runner: LaneRunner;
const host: Host = {
  post: (m) => sent.push(m),
  now: () => clock,
  schedule: (fn) => tasks.push(fn),
};

function runTasks(max: number): number {
  let n = 0;
  while (tasks.length && n < max) {
    tasks.shift()!();
    clock += 5;
    n++;
  }
  return n;
}

const of = <T extends FromWorker['type']>(type: T) => sent.filter((m) => m.type === type) as Extract<FromWorker, { type: T }>[];

beforeEach(() => {
  sent = [];
  tasks = [];
  clock = 0;
  core.lanes = [];
  runner = new LaneRunner(core, host);
});

describe('LaneRunner', () => {
  it('builds a lane and sends its first point and a view at once', () => {
    runner.handle({ type: 'configure', config: { lr: 0.1, seed: 3, every: 10 }, dataset: 'bas4', field: 'lr' });
    expect(of('configured')).toEqual([{ type: 'configured', seed: '3', field: 'lr' }]);
    const p = of('progress')[0];
    expect(p.points).toEqual([{ iter: 0, sweeps: 0, atll: -10 }]);
    expect(p.view?.weights.length).toBe(8);
    expect(p.view?.chains).toEqual(new Uint8Array([1, 0, 1, 0, 0, 1, 0, 1]));
    expect(tasks).toHaveLength(0); // not running yet
  });

  it('refuses a bad configuration with the core message and keeps the previous lane', () => {
    runner.handle({ type: 'configure', config: { lr: 0.1, seed: 1 }, dataset: 'bas4' });
    runner.handle({ type: 'configure', config: { lr: -1, seed: 1 }, dataset: 'bas4', field: 'lr' });
    expect(of('rejected')).toEqual([{ type: 'rejected', message: expect.stringContaining('learning rate'), field: 'lr' }]);
    expect(core.lanes[0].freed).toBe(false);
    runner.handle({ type: 'start' });
    runTasks(3);
    expect(core.lanes[0].iter).toBeGreaterThan(0);
  });

  it('runs in slices while started, streams points, and stops scheduling on pause', () => {
    runner.handle({ type: 'configure', config: { lr: 0.1, seed: 1, every: 10 }, dataset: 'bas4' });
    runner.handle({ type: 'start' });
    expect(of('state')).toEqual([{ type: 'state', running: true }]);
    expect(runTasks(20)).toBe(20);
    const iters = of('progress').flatMap((m) => m.points.map((p) => p.iter));
    expect(iters.length).toBeGreaterThan(3);
    expect(iters).toEqual([...iters].sort((x, y) => x - y));
    expect(new Set(iters).size).toBe(iters.length);
    const last = of('progress').at(-1)!;
    expect(last.rate).toBeGreaterThan(0);
    expect(last.stats).toEqual({ mean_tau: 2.5 });
    // Every slice reports the update count, records or not.
    const counts = of('progress').map((m) => m.iter);
    expect(counts).toEqual([...new Set(counts)].sort((x, y) => x - y));
    expect(counts.length).toBeGreaterThanOrEqual(20);
    runner.handle({ type: 'pause' });
    const at = core.lanes[0].iter;
    // The last word before "paused" is the final position.
    const afterPause = sent.slice(sent.lastIndexOf(of('progress').at(-1)!));
    expect(afterPause.map((m) => m.type)).toEqual(['progress', 'state']);
    expect(of('progress').at(-1)!.iter).toBe(at);
    runTasks(10);
    expect(core.lanes[0].iter).toBe(at);
    expect(of('state').at(-1)).toEqual({ type: 'state', running: false });
  });

  it('takes the periodic views right at records, where the record\'s log Z can be reused', () => {
    runner.handle({ type: 'configure', config: { lr: 0.1, seed: 1, every: 7 }, dataset: 'bas4' });
    runner.handle({ type: 'start' });
    runTasks(400);
    const views = of('progress').slice(1).flatMap((m) => (m.view ? [m.view.iter] : []));
    expect(views.length).toBeGreaterThan(3);
    for (const iter of views) expect(iter % 7).toBe(0);
  });

  it('grows the chunk while slices are quick', () => {
    runner.handle({ type: 'configure', config: { lr: 0.1, seed: 1, every: 1000 }, dataset: 'bas4' });
    runner.handle({ type: 'start' });
    runTasks(8);
    expect(core.lanes[0].iter).toBeGreaterThanOrEqual(2 ** 8 - 1);
  });

  it('reports a divergence once, keeps the points before it and stops', () => {
    runner.handle({ type: 'configure', config: { lr: 1e39, seed: 1, every: 2 }, dataset: 'bas4' });
    runner.handle({ type: 'start' });
    runTasks(50);
    expect(of('failed')).toEqual([{ type: 'failed', message: 'training diverged at update 7', iter: 6 }]);
    expect(of('state').at(-1)).toEqual({ type: 'state', running: false });
    expect(of('progress').flatMap((m) => m.points.map((p) => p.iter))).toEqual([0, 2, 4, 6]);
    expect(tasks).toHaveLength(0);
    runner.handle({ type: 'start' });
    expect(of('state').at(-1)).toEqual({ type: 'state', running: false });
  });

  it('resets to a fresh lane with the same configuration, and exports the model', () => {
    runner.handle({ type: 'configure', config: { lr: 0.1, seed: 9, every: 10 }, dataset: 'bas4' });
    runner.handle({ type: 'start' });
    runTasks(5);
    runner.handle({ type: 'reset' });
    expect(core.lanes).toHaveLength(2);
    expect(core.lanes[0].freed).toBe(true);
    expect(of('configured').map((m) => m.seed)).toEqual(['9', '9']);
    runner.handle({ type: 'export' });
    expect(of('model')).toEqual([{ type: 'model', json: '{"iter":0}' }]);
  });

  it('pauses for good at its limit, on the exact update, and a later limit lets it go on', () => {
    runner.handle({ type: 'limit', until: 1234 });
    runner.handle({ type: 'configure', config: { lr: 0.1, seed: 1, every: 100 }, dataset: 'bas4' });
    runner.handle({ type: 'start' });
    runTasks(200);
    expect(core.lanes[0].iter).toBe(1234);
    expect(tasks).toHaveLength(0);
    expect(of('state').at(-1)).toEqual({ type: 'state', running: false, done: true });
    expect(of('progress').at(-1)!.iter).toBe(1234);
    // Start again at the limit: done at once.
    runner.handle({ type: 'start' });
    expect(tasks).toHaveLength(0);
    expect(of('state').at(-1)).toEqual({ type: 'state', running: false, done: true });
    // A later limit (or none) and start: it trains on from where it was, same lane.
    runner.handle({ type: 'limit', until: 1500 });
    runner.handle({ type: 'start' });
    runTasks(200);
    expect(core.lanes).toHaveLength(1);
    expect(core.lanes[0].iter).toBe(1500);
    // A limit below the position of a running lane stops it at once.
    runner.handle({ type: 'limit', until: null });
    runner.handle({ type: 'start' });
    runTasks(3);
    runner.handle({ type: 'limit', until: 10 });
    expect(of('state').at(-1)).toEqual({ type: 'state', running: false, done: true });
    const at = core.lanes[0].iter;
    runTasks(5);
    expect(core.lanes[0].iter).toBe(at);
  });
});
