import { describe, expect, it } from 'vitest';
import type { HiddenNorms } from '../src/protocol/analyses';
import { addNorms, emptyNorms, MAX_NORM_COLUMNS, type NormHistory, normCaption, normColumns, rowPx, stripPixels } from '../src/views/panels/weightNorms';
import { finished, HANDLERS, hiddenNorms } from '../src/workers/analyses';

/** A deterministic W (m×n row-major) with entries of both signs. */
function weights(m: number, n: number, seed = 1): Float32Array {
  let s = seed;
  return Float32Array.from({ length: m * n }, () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 30 - 1;
  });
}

/** ‖W[:,j]‖ the plain way: one column at a time. */
function columnNorm(w: Float32Array, m: number, n: number, j: number): number {
  const col: number[] = [];
  for (let i = 0; i < m; i++) col.push(w[i * n + j]);
  return Math.hypot(...col);
}

describe('‖W[:,j]‖ in the worker (hiddenNorms)', () => {
  it("is each hidden unit's column norm, for MNIST's 784×500 and small shapes", () => {
    for (const [m, n] of [
      [784, 500],
      [16, 16],
      [9, 1],
      [1, 7],
    ]) {
      const w = weights(m, n, m + n);
      const r = hiddenNorms(w, n, 64);
      expect(r.n).toBe(n);
      expect(r.norms).toHaveLength(Math.min(64, n));
      const all = Array.from({ length: n }, (_, j) => columnNorm(w, m, n, j));
      r.norms.forEach((x, j) => {
        expect(x).toBeCloseTo(all[j], 10);
      });
      expect(r.mean).toBeCloseTo(all.reduce((a, b) => a + b, 0) / n, 10);
      expect(r.max).toBeCloseTo(Math.max(...all), 10);
    }
  });

  it('knows columns from rows: a weight in column j counts for unit j only', () => {
    const w = new Float32Array(3 * 4); // m = 3, n = 4
    w[1 * 4 + 2] = 3; // visible 1, hidden 2
    w[2 * 4 + 2] = 4; // visible 2, hidden 2
    w[0 * 4 + 0] = -2;
    expect(hiddenNorms(w, 4, 4)).toEqual({ n: 4, norms: [2, 0, 5, 0], mean: 7 / 4, max: 5 });
    expect(hiddenNorms(w, 4, 0).norms).toEqual([]);
  });

  it("is the handler of the `hiddenNorms` kind: one step, on the lane's weights", () => {
    const w = weights(5, 3);
    const lane = {
      weights: () => w,
      hidden: 3,
      iter: 7,
      chain: () => {
        throw new Error('not used');
      },
      grad: () => {
        throw new Error('not used');
      },
      mixing: () => {
        throw new Error('not used');
      },
    };
    const run = HANDLERS.hiddenNorms(lane, 'bas4', { kind: 'hiddenNorms', units: 2 });
    expect(run.step(10)).toEqual({ done: true, doneSteps: 1, totalSteps: 1 });
    expect(run.result()).toEqual(hiddenNorms(w, 3, 2));
    expect(finished(42).result()).toBe(42);
  });
});

const result = (norms: number[], n = norms.length): HiddenNorms => ({
  n,
  norms,
  mean: norms.reduce((a, b) => a + b, 0) / norms.length,
  max: Math.max(...norms),
});

describe('the ‖W‖ panel: its history over training', () => {
  it('keeps one column per update, in order; a repeated update replaces its column', () => {
    let h = emptyNorms();
    h = addNorms(h, 200, result([2, 4], 500));
    h = addNorms(h, 100, result([1, 1], 500));
    h = addNorms(h, 200, result([3, 5], 500));
    expect(h.iters).toEqual([100, 200]);
    expect(h.norms).toEqual([
      [1, 1],
      [3, 5],
    ]);
    expect(h.n).toBe(500);
    expect(normColumns(h)).toEqual({ x: [100, 200], ys: [h.mean, h.max] });
    expect(h.max).toEqual([1, 5]);
  });

  it('stays within its column bound over a long run, keeping the first and the latest update', () => {
    let h: NormHistory = emptyNorms();
    for (let it = 0; it < 5000; it += 10) h = addNorms(h, it, result([it / 1000]));
    expect(h.iters.length).toBeLessThanOrEqual(MAX_NORM_COLUMNS);
    expect(h.iters.length).toBeGreaterThan(MAX_NORM_COLUMNS / 2);
    expect(h.iters[0]).toBe(0);
    expect(h.iters.at(-1)).toBe(4990);
    expect([...h.iters].sort((a, b) => a - b)).toEqual(h.iters);
    expect(h.norms.every((c, i) => c[0] === h.iters[i] / 1000)).toBe(true);
  });

  it('draws one pixel per unit and update, darker for longer, white below a shorter column', () => {
    let h = emptyNorms();
    h = addNorms(h, 1, result([0.5, 1]));
    h = addNorms(h, 2, result([2]));
    const px = stripPixels(h);
    expect([px.width, px.height, px.lo, px.hi]).toEqual([2, 2, 0.5, 2]);
    const at = (x: number, y: number) => [...px.data.subarray(4 * (y * px.width + x), 4 * (y * px.width + x) + 4)];
    const lightness = (p: number[]) => p[0] + p[1] + p[2];
    expect(at(0, 0)).toEqual([255, 255, 229, 255]); // the shortest: the lightest colour
    expect(at(1, 0)).toEqual([84, 39, 143, 255]); // the longest: the darkest
    expect(lightness(at(0, 0))).toBeGreaterThan(lightness(at(0, 1))); // 0.5 lighter than 1
    expect(lightness(at(0, 1))).toBeGreaterThan(lightness(at(1, 0))); // 1 lighter than 2
    expect(at(1, 1)).toEqual([255, 255, 255, 255]); // no unit 2 at update 2
    expect(px.data.every((v, i) => i % 4 !== 3 || v === 255)).toBe(true);
  });

  it('draws a diverged model (norms not finite) grey in the strip and as gaps in the chart', () => {
    let h = emptyNorms();
    h = addNorms(h, 1, result([1, 3]));
    h = addNorms(h, 2, { n: 2, norms: [Number.NaN, Number.POSITIVE_INFINITY], mean: Number.NaN, max: Number.NaN });
    const px = stripPixels(h);
    expect([px.lo, px.hi]).toEqual([1, 3]);
    const at = (x: number, y: number) => [...px.data.subarray(4 * (y * px.width + x), 4 * (y * px.width + x) + 4)];
    expect([at(1, 0), at(1, 1)]).toEqual([
      [128, 128, 128, 255],
      [128, 128, 128, 255],
    ]);
    expect(at(0, 1)).toEqual([84, 39, 143, 255]);
    expect(normColumns(h).ys).toEqual([
      [2, null],
      [3, null],
    ]);
  });

  it('gives the strip about 160 CSS pixels, 2 to 8 per unit', () => {
    expect([rowPx(1), rowPx(16), rowPx(64), rowPx(500)]).toEqual([8, 8, 2, 2]);
  });

  it('says which units it shows, its colour range and the latest numbers', () => {
    let h = emptyNorms();
    expect(normCaption(h, 0, 0)).toBe('');
    h = addNorms(h, 0, { n: 500, norms: [0.1, 0.2], mean: 0.15, max: 0.3 });
    h = addNorms(h, 1500, { n: 500, norms: [0.5, 0.7], mean: 0.6, max: 1.25 });
    const c = normCaption(h, 0.1, 0.7);
    expect(c).toMatch(/the first 2 of the 500 hidden units/);
    expect(c).toMatch(/over updates 0 to 1,500 \(columns\), from 0\.100 \(lightest\) to 0\.700 \(darkest\)/);
    expect(c).toMatch(/At update 1,500: mean 0\.600, largest 1\.25 over all units/);
    expect(normCaption(addNorms(emptyNorms(), 3, result([1, 2])), 1, 2)).toMatch(/each of the 2 hidden units/);
  });
});
