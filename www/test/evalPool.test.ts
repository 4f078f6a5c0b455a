import { beforeEach, describe, expect, it } from 'vitest';
import type { ToWorker } from '../src/protocol/messages';
import { exactProgressText } from '../src/views/panels/exact';
import { CHUNK_BLOCKS, type EvalEvents, EvalPool, poolSize } from '../src/workers/evalPool';
import { FakeWorker } from './fakeWorker';

let workers: FakeWorker[];
let pool: EvalPool;

/** What a lane hears. */
function listener() {
  const heard = { progress: [] as [number, number][], ahead: [] as number[], done: [] as Float64Array[], failed: [] as string[] };
  const events: EvalEvents = {
    progress: (d, t, a) => {
      heard.progress.push([d, t]);
      heard.ahead.push(a);
    },
    done: (p) => heard.done.push(p),
    failed: (m) => heard.failed.push(m),
  };
  return { heard, events };
}

const model = (...bytes: number[]) => new Uint8Array(bytes).buffer;

/** The chunks a worker was sent and has not answered (in order). */
const open = (w: FakeWorker) => w.posted.filter((m): m is Extract<ToWorker, { type: 'logz' }> => m.type === 'logz').slice(answered.get(w) ?? 0);
const answered = new Map<FakeWorker, number>();

/** Worker `w` answers its oldest open chunk: block b's partial sum is (b, 10·b). */
function answer(w: FakeWorker): void {
  const c = open(w)[0];
  answered.set(w, (answered.get(w) ?? 0) + 1);
  const parts = new Float64Array(2 * (c.to - c.from));
  for (let b = c.from; b < c.to; b++) parts.set([b, 10 * b], 2 * (b - c.from));
  w.reply({ type: 'logzParts', id: c.id, from: c.from, parts });
}

beforeEach(() => {
  workers = [];
  answered.clear();
  pool = new EvalPool((name) => {
    const w = new FakeWorker(name);
    workers.push(w);
    return w;
  }, 2);
});

describe('EvalPool', () => {
  it('splits a job into chunks of blocks over its workers and gives every partial sum back in block order', () => {
    const { heard, events } = listener();
    pool.submit(model(1, 2, 3), 20, events);
    expect(workers.map((w) => w.name)).toEqual(['exact evaluation 1', 'exact evaluation 2']);
    expect(open(workers[0]).map((c) => [c.from, c.to])).toEqual([[0, CHUNK_BLOCKS]]);
    expect(open(workers[1]).map((c) => [c.from, c.to])).toEqual([[CHUNK_BLOCKS, 2 * CHUNK_BLOCKS]]);
    // The second worker answers first and takes the last chunk; the first answers after it.
    answer(workers[1]);
    expect(open(workers[1]).map((c) => [c.from, c.to])).toEqual([[2 * CHUNK_BLOCKS, 20]]);
    answer(workers[0]);
    expect(heard.done).toEqual([]);
    answer(workers[1]);
    expect(heard.done).toHaveLength(1);
    const want = new Float64Array(40);
    for (let b = 0; b < 20; b++) want.set([b, 10 * b], 2 * b);
    expect(heard.done[0]).toEqual(want);
    expect(heard.progress).toEqual([
      [0, 20],
      [8, 20],
      [16, 20],
      [20, 20],
    ]);
    expect(pool.pending).toBe(0);
    expect(workers).toHaveLength(2); // kept for the next job
  });

  it('enumerates a model several lanes ask for once, and stops a job nobody wants any more', () => {
    const a = listener();
    const b = listener();
    const c = listener();
    const ta = pool.submit(model(9, 9), 16, a.events);
    pool.submit(model(9, 9), 16, b.events);
    expect(pool.pending).toBe(1);
    pool.submit(model(4), 8, c.events);
    ta.cancel();
    answer(workers[0]);
    answer(workers[1]);
    expect(a.heard.done).toEqual([]);
    expect(b.heard.done).toHaveLength(1);
    // The next job runs on; a job whose only lane cancels is dropped, its chunk's answer ignored.
    const tc = open(workers[0]).length ? workers[0] : workers[1];
    expect(open(tc)[0].model).toEqual(model(4));
    const d = listener();
    pool.submit(model(5), 8, d.events).cancel();
    expect(pool.pending).toBe(1);
    for (const w of workers) while (open(w).length) answer(w);
    expect(c.heard.done).toHaveLength(1);
    expect(d.heard.done).toEqual([]);
    expect(pool.pending).toBe(0);
  });

  it('fails the job of a worker that broke or refused, and carries on with a new worker', () => {
    const a = listener();
    const b = listener();
    pool.submit(model(1), 16, a.events);
    workers[0].reply({ type: 'status', gen: 0, status: 'fatal', message: 'the WebAssembly core did not load' });
    expect(a.heard.failed).toEqual(['the WebAssembly core did not load']);
    expect(workers[0].terminated).toBe(true);
    expect(pool.pending).toBe(0);
    pool.submit(model(2), 8, b.events);
    const fresh = workers.at(-1)!;
    expect(fresh.name).toBe('exact evaluation 3');
    fresh.reply({ type: 'logzFailed', id: open(fresh)[0].id, message: 'blocks 0..8 do not exist' });
    expect(b.heard.failed).toEqual(['blocks 0..8 do not exist']);
    const c = listener();
    pool.submit(model(3), 8, c.events);
    const w = workers.find((x) => open(x).some((m) => new Uint8Array(m.model)[0] === 3))!;
    w.onerror?.({ message: 'boom', preventDefault: () => undefined } as ErrorEvent);
    expect(c.heard.failed).toEqual(['an evaluation worker failed: boom']);
  });

  it('tells a queued point how many points are ahead of it, and when its turn comes (issue 27)', () => {
    const [a, b, c] = [listener(), listener(), listener()];
    pool.submit(model(1), 2 * CHUNK_BLOCKS, a.events); // both workers busy with it
    pool.submit(model(2), CHUNK_BLOCKS, b.events);
    pool.submit(model(3), CHUNK_BLOCKS, c.events);
    expect([a.heard.ahead, b.heard.ahead, c.heard.ahead]).toEqual([[0], [1], [2]]);
    answer(workers[0]); // a's first chunk in: a worker free, b starts
    expect(b.heard.ahead.at(-1)).toBe(0);
    expect(c.heard.ahead.at(-1)).toBe(2); // a (finishing) and b before it
    answer(workers[1]); // a done: c starts on the free worker
    expect(a.heard.done).toHaveLength(1);
    expect(c.heard.ahead.at(-1)).toBe(0);
    // A lane giving up its queued point moves the others up.
    const [d, e] = [listener(), listener()];
    const td = pool.submit(model(4), CHUNK_BLOCKS, d.events);
    pool.submit(model(5), CHUNK_BLOCKS, e.events);
    expect([d.heard.ahead.at(-1), e.heard.ahead.at(-1)]).toEqual([2, 3]);
    td.cancel();
    expect(e.heard.ahead.at(-1)).toBe(2);
  });

  it('sizes itself to the machine: every core, at least one, at most four', () => {
    expect([poolSize(undefined), poolSize(1), poolSize(2), poolSize(8), poolSize(0)]).toEqual([2, 1, 2, 4, 2]);
  });
});

describe("a lane's exact-evaluation line", () => {
  it('says how far the pool is through the states, and that the lane waits', () => {
    const job = { id: 1, gen: 1, iter: 2000, done: 128, total: 512, started: 1000, ahead: 0, began: 1000, state: 'running' as const, message: null };
    expect(exactProgressText(job, 2, 15_000)).toBe(
      'Exact log-likelihood of update 2,000: 128 of 512 blocks (25%) of 2^25 states in 2 evaluation workers, 14 s, about 42 s left; training waits for it',
    );
    // Queued behind other lanes' points (issue 27): it says so, not "0 of 512 blocks (0%)".
    expect(exactProgressText({ ...job, done: 0, ahead: 2, began: null }, 2, 66_000)).toBe(
      'Exact log-likelihood of update 2,000: queued: 2 points of other lanes ahead of it in the 2 evaluation workers, 1 min 05 s so far; training waits for it',
    );
    expect(exactProgressText({ ...job, done: 0, ahead: 0, began: 60_000 }, 2, 66_000)).toBe(
      'Exact log-likelihood of update 2,000: 0 of 512 blocks (0%) of 2^25 states in 2 evaluation workers, 1 min 05 s; training waits for it',
    );
    expect(exactProgressText({ ...job, state: 'failed', message: 'a worker failed' }, 1, 0)).toBe(
      'Exact log-likelihood of update 2,000: a worker failed (skipped)',
    );
  });
});
