import { describe, expect, it } from 'vitest';
import type { MixingResult } from '../src/generated/core';
import { addMixingPoint, mixingCaption, mixingDue, mixingPoint, mixingQuiet, mixingReach, mixingText, projectionBounds } from '../src/views/panels/mixing';
import { HANDLERS } from '../src/workers/analyses';

const result = (iter: number, lambda2: number, relaxation: number | null): MixingResult => ({
  iter,
  gibbs: { lambda2, relaxation_time: relaxation as number, lanczos_steps: 12 },
  bound: null,
  singular_values: [4.5, 1.25],
  modes: 3,
  data_points: [
    [0, 1],
    [2, 3],
  ],
  chain_points: [],
});

describe('the exact mixing panel', () => {
  it("keeps one point per update, in order, with the result's numbers", () => {
    let h = addMixingPoint([], mixingPoint(result(500, 0.99, 100)));
    h = addMixingPoint(h, mixingPoint(result(0, 0.5, 2)));
    h = addMixingPoint(h, mixingPoint(result(500, 0.995, 200)));
    expect(h[0].sigmas).toEqual([4.5, 1.25]);
    expect(mixingPoint({ ...result(1, 0.5, 2), singular_values: Array.from({ length: 20 }, (_, i) => 20 - i) }).sigmas).toHaveLength(8);
    expect(h.map((p) => [p.iter, p.lambda2, p.relaxation, p.sigma1, p.modes])).toEqual([
      [0, 0.5, 2, 4.5, 3],
      [500, 0.995, 200, 4.5, 3],
    ]);
  });

  it('an infinite relaxation time (λ₂ rounds to 1, JSON null) is said as such', () => {
    const p = mixingPoint(result(10, 1, null));
    expect(p.relaxation).toBeNull();
    expect(mixingText(p)).toBe('At update 10: λ₂ = 1.000000, relaxation time infinite; largest singular value of W 4.50; p(v) has 3 modes.');
  });

  it('beyond the exact kernel, a lower bound: said with ≥ and "at least", and in the caption', () => {
    const r: MixingResult = {
      ...result(2000, 0, null),
      gibbs: null,
      bound: { lambda2_lower: 0.97, relaxation_time_lower: 33.3, layer: 'hidden', degree: 2, functions: 136 },
    };
    const p = mixingPoint(r);
    expect([p.exact, p.lambda2, p.relaxation]).toEqual([false, 0.97, 33.3]);
    expect(mixingText(p)).toBe(
      'At update 2,000: λ₂ ≥ 0.970000, relaxation time at least 33.3 Gibbs sweeps; largest singular value of W 4.50; p(v) has 3 modes.',
    );
    expect(mixingPoint(result(1, 0.5, 2)).exact).toBe(true);
    const near = mixingPoint({ ...r, bound: { lambda2_lower: 1 - 9e-8, relaxation_time_lower: 1 / 9e-8, layer: 'hidden', degree: 2, functions: 136 } });
    expect(mixingText(near)).toMatch(/^At update 2,000: λ₂ ≥ 1 − 9\.00e-8, relaxation time at least /);
    expect(mixingCaption(false)).toContain('lower bound');
    expect(mixingCaption(true)).toContain('exactly');
  });

  it('exact up to m + n = 24, a bound with each layer ≤ 20 beyond, nothing further', () => {
    expect([mixingReach(16, 8), mixingReach(16, 16), mixingReach(20, 20), mixingReach(16, 21), mixingReach(784, 2)]).toEqual([
      'exact',
      'bound',
      'bound',
      null,
      null,
    ]);
  });

  it('asks at the start, then every N updates; never with N = 0', () => {
    expect(mixingDue(500, 0, Number.NEGATIVE_INFINITY)).toBe(true);
    expect(mixingDue(500, 499, 0)).toBe(false);
    expect(mixingDue(500, 500, 0)).toBe(true);
    expect(mixingDue(0, 10_000, 0)).toBe(false);
    // After a point that took 2 s, the next automatic one waits 6 s more (a quarter of the lane's time).
    expect(mixingQuiet(2000)).toBe(6000);
    expect(mixingDue(500, 1000, 0, 5_000, 8_000)).toBe(false);
    expect(mixingDue(500, 1000, 0, 8_000, 8_000)).toBe(true);
  });

  it("the worker's handler is the lane's stepped computation", () => {
    const stepped = { step: () => ({ done: true, doneSteps: 1, totalSteps: 1 }), result: () => result(0, 0.5, 2), free: () => undefined };
    const lane = { mixing: () => stepped } as unknown as Parameters<typeof HANDLERS.mixing>[0];
    expect(HANDLERS.mixing(lane, 'bas4', { kind: 'mixing' })).toBe(stepped);
  });
});

describe('the projection scatter', () => {
  it('frames every point in a square with a margin, and a lone point in a unit square', () => {
    const b = projectionBounds([
      [0, 0],
      [2, 1],
      [1, -1],
    ]);
    expect(b.size).toBeCloseTo(2.2);
    for (const [x, y] of [
      [0, 0],
      [2, 1],
      [1, -1],
    ]) {
      expect(x).toBeGreaterThan(b.x0);
      expect(x).toBeLessThan(b.x0 + b.size);
      expect(y).toBeGreaterThan(b.y0);
      expect(y).toBeLessThan(b.y0 + b.size);
    }
    expect(projectionBounds([])).toEqual({ x0: -0.5, y0: -0.5, size: 1 });
    expect(projectionBounds([[3, 4]]).size).toBeCloseTo(1.1e-9);
  });
});
