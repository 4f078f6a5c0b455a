import { describe, expect, it } from 'vitest';
import { asksForGpu, type FromWorker } from '../src/protocol/messages';
import { type Clock, WatchedWorker } from '../src/workers/workerHealth';
import { FakeWorker } from './fakeWorker';

/** A clock the test moves by hand: `advance` runs the ticks that fall due. */
class ManualClock implements Clock {
  t = 0;
  private ticks: { ms: number; next: number; tick: () => void }[] = [];
  now(): number {
    return this.t;
  }
  every(ms: number, tick: () => void): () => void {
    const entry = { ms, next: this.t + ms, tick };
    this.ticks.push(entry);
    return () => {
      this.ticks = this.ticks.filter((e) => e !== entry);
    };
  }
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const due = this.ticks.filter((e) => e.next <= end).sort((a, b) => a.next - b.next)[0];
      if (!due) break;
      this.t = due.next;
      due.next += due.ms;
      due.tick();
    }
    this.t = end;
  }
  /** The tab is frozen for `ms`: no tick runs; each runs once, late, after it. */
  freeze(ms: number): void {
    this.t += ms;
    for (const e of this.ticks) e.next = this.t + e.ms;
  }
}

function setup() {
  const clock = new ManualClock();
  const inner = new FakeWorker('lane 0');
  const w = new WatchedWorker(inner, { interval: 1000, timeout: 5000, gpuTimeout: 30_000 }, clock);
  const errors: string[] = [];
  const got: FromWorker[] = [];
  w.onerror = (e) => errors.push(e.message);
  w.onmessage = (e) => got.push(e.data);
  /** The worker answers every ping posted so far. */
  const answer = () => {
    for (const m of inner.posted.splice(0)) if (m.type === 'ping') inner.reply({ type: 'pong', id: m.id });
  };
  return { clock, inner, w, errors, got, answer };
}

describe("a lane's watched worker", () => {
  it('stays quiet while the worker answers its pings, and keeps the pongs to itself', () => {
    const { clock, inner, errors, got, answer } = setup();
    for (let i = 0; i < 60; i++) {
      clock.advance(1000);
      answer();
    }
    expect(errors).toEqual([]);
    expect(inner.terminated).toBe(false);
    expect(got).toEqual([]);
    inner.reply({ type: 'status', gen: 1, status: 'running', message: null });
    expect(got).toEqual([{ type: 'status', gen: 1, status: 'running', message: null }]);
  });

  it('a late answer within the timeout is no death; a silent worker is ended and reported once', () => {
    const { clock, inner, errors, answer } = setup();
    clock.advance(4000); // four pings unanswered, the first for 3 s
    answer();
    clock.advance(5000);
    answer(); // t = 9 s: everything answered
    expect(errors).toEqual([]);
    // The worker dies: ping 10 (t = 10 s) is the first never answered.
    clock.advance(6000);
    expect(errors).toEqual([]); // t = 15 s: the ping is 5 s old, not more
    clock.advance(1000);
    expect(errors).toEqual(['it stopped answering (no reply in 5 s): it was ended or is stuck']);
    expect(inner.terminated).toBe(true);
    clock.advance(60_000);
    expect(errors).toHaveLength(1);
  });

  it('a worker asked to work on the GPU may be silent for the GPU timeout; past it, it is ended', () => {
    const { clock, inner, w, errors, answer } = setup();
    w.postMessage({ type: 'configure', gen: 1, config: {} as never, dataset: 'bas3', compute: 'gpu' });
    expect(inner.posted[0]).toMatchObject({ type: 'configure', compute: 'gpu' });
    // Opening its device holds it for 20 s (a busy software GPU): no death.
    clock.advance(20_000);
    expect(errors).toEqual([]);
    answer();
    clock.advance(1000);
    answer();
    expect(errors).toEqual([]);
    // It dies: the first ping never answered is sent at t = 22 s; at 52 s it is 30 s old, not more.
    clock.advance(31_000);
    expect(errors).toEqual([]);
    expect(inner.terminated).toBe(false);
    clock.advance(1000);
    expect(errors).toEqual(['it stopped answering (no reply in 30 s): it was ended or is stuck']);
    expect(inner.terminated).toBe(true);
  });

  it('which messages ask for the GPU: a GPU lane or trial, a study job, an AIS request', () => {
    const config = {} as never;
    expect(asksForGpu({ type: 'configure', gen: 1, config, dataset: 'd' })).toBe(false);
    expect(asksForGpu({ type: 'configure', gen: 1, config, dataset: 'd', compute: 'gpu' })).toBe(true);
    expect(asksForGpu({ type: 'trial', id: 1, config, dataset: 'd', seed: 1, trial: 0, until: 10 })).toBe(false);
    expect(asksForGpu({ type: 'trial', id: 1, config, dataset: 'd', seed: 1, trial: 0, until: 10, compute: 'gpu' })).toBe(true);
    expect(asksForGpu({ type: 'studyJob', id: 1, dataset: 'd', seed: 1, until: 10, every: 5, lanes: [] })).toBe(true);
    expect(asksForGpu({ type: 'aisRequest', key: 1, request: {} as never })).toBe(true);
    expect(asksForGpu({ type: 'start' })).toBe(false);
  });

  it('a throttled timer (one tick after a long pause) is not taken for a death', () => {
    const { clock, errors, answer, inner } = setup();
    clock.advance(1000); // ping 1
    // The tab was frozen for a minute: the next tick comes late, the worker answers then.
    clock.freeze(60_000);
    clock.advance(1000);
    expect(errors).toEqual([]);
    answer();
    clock.advance(1000);
    expect(errors).toEqual([]);
    expect(inner.terminated).toBe(false);
  });

  it('an error event passes through; terminate stops the pings', () => {
    const { clock, inner, w, errors } = setup();
    inner.onerror?.({ message: 'boom' } as ErrorEvent);
    expect(errors).toEqual(['boom']);
    w.terminate();
    expect(inner.terminated).toBe(true);
    const n = inner.posted.length;
    clock.advance(20_000);
    expect(inner.posted.length).toBe(n);
    expect(errors).toEqual(['boom']);
  });
});
