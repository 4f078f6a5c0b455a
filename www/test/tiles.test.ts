import { describe, expect, it } from 'vitest';
import {
  absMaxColumns,
  diverging,
  divergingLut,
  filterPixels,
  greyPixels,
  ink,
  LUT_STEPS,
  type Pixels,
  TILE_BACKGROUND,
  tileLayout,
  tileOrigin,
} from '../src/views/tiles';

/** The RGBA of pixel (x, y). */
const at = (px: Pixels, x: number, y: number) => [...px.data.slice(4 * (y * px.width + x), 4 * (y * px.width + x) + 4)];

describe('tile layout', () => {
  it('lays 100 MNIST filters out as 10 × 10 tiles of 28 × 28 units', () => {
    const l = tileLayout(100, [28, 28], 320, { cols: 10, gap: 2, maxCell: 3 });
    expect([l.cols, l.rows, l.cell]).toEqual([10, 10, 1]);
    expect([l.width, l.height]).toEqual([10 * 28 + 9 * 2, 10 * 28 + 9 * 2]);
    expect(tileOrigin(l, 0)).toEqual([0, 0]);
    expect(tileOrigin(l, 13)).toEqual([3 * 30, 1 * 30]);
  });
  it('makes units as large as the width allows, at most maxCell', () => {
    const l = tileLayout(8, [28, 28], 600, { cols: 8, gap: 2, maxCell: 3 });
    expect(l.cell).toBe(2); // (600 − 14) / (8 · 28) = 2.6
    expect(l.width).toBeLessThanOrEqual(600);
    expect(tileLayout(16, [4, 4], 320, { cols: 4, gap: 3 }).cell).toBe(19);
    expect(tileLayout(1, [4, 4], 320, { maxCell: 5 }).cell).toBe(5);
  });
  it('wraps into fewer columns when the wanted ones do not fit even at one pixel per unit', () => {
    const l = tileLayout(500, [28, 28], 560, { cols: 23, gap: 2 });
    expect(l.cell).toBe(1);
    expect(l.cols).toBe(18); // (560 + 2) / 30
    expect(l.rows).toBe(28);
    expect(l.width).toBeLessThanOrEqual(560);
  });
});

describe('filter pixels', () => {
  // W is 6×3 (m = 6 visible units as a 2×3 image, n = 3 hidden units), row-major: W[i, j] = w[i·3 + j].
  const m = 6;
  const n = 3;
  const w = new Float32Array(m * n);
  w[0 * n + 0] = 0.5; // unit 0 (row 0, column 0) of filter 0
  w[4 * n + 1] = -1; // unit 4 (row 1, column 1) of filter 1
  w[5 * n + 2] = 0.25; // unit 5 (row 1, column 2) of filter 2
  const layout = tileLayout(3, [2, 3], 100, { cols: 3, gap: 1, maxCell: 2 });

  it("puts W[i, j] at unit i of tile j, in the table's diverging colour of W[i, j] / scale", () => {
    expect([layout.cell, layout.width, layout.height]).toEqual([2, 3 * 6 + 2, 4]);
    const px = filterPixels(w, m, n, layout, 1);
    expect([px.width, px.height, px.data.length]).toEqual([20, 4, 20 * 4 * 4]);
    // Filter 0 starts at x = 0; unit 0 covers pixels (0..1, 0..1).
    expect(at(px, 0, 0)).toEqual([...divergingLut(0.5), 255]);
    expect(at(px, 1, 1)).toEqual([...divergingLut(0.5), 255]);
    expect(at(px, 2, 0)).toEqual([...divergingLut(0), 255]); // unit 1 of filter 0: W = 0, white
    // Filter 1 starts at x = 7 (6 pixels + 1 gap); unit 4 is row 1, column 1 → (9, 2).
    expect(at(px, 7 + 2, 2)).toEqual([...divergingLut(-1), 255]);
    expect(at(px, 7 + 3, 3)).toEqual([...divergingLut(-1), 255]);
    // Filter 2 starts at x = 14; unit 5 is row 1, column 2 → (18, 2).
    expect(at(px, 14 + 4, 2)).toEqual([...divergingLut(0.25), 255]);
    // The gaps are transparent.
    expect(at(px, 6, 0)).toEqual([0, 0, 0, 0]);
    expect(at(px, 13, 3)).toEqual([0, 0, 0, 0]);
  });

  it('scales by the given scale and clamps beyond it', () => {
    const half = filterPixels(w, m, n, layout, 0.5);
    expect(at(half, 0, 0)).toEqual([...divergingLut(1), 255]); // 0.5 / 0.5
    expect(at(half, 14 + 4, 2)).toEqual([...divergingLut(0.5), 255]);
    expect(at(half, 7 + 2, 2)).toEqual([...divergingLut(-1), 255]); // −2 clamped
    expect(absMaxColumns(w, m, n, 3)).toBe(1);
    expect(absMaxColumns(w, m, n, 1)).toBe(0.5); // the first filter only
  });

  it('draws only the first `count` filters and reads its colours from a table within one step of diverging()', () => {
    const l1 = tileLayout(1, [2, 3], 100, { cols: 1, gap: 1, maxCell: 1 });
    const px = filterPixels(w, m, n, l1, 1);
    expect([px.width, px.height]).toEqual([3, 2]);
    for (const t of [-1, -0.5, -0.123, 0, 0.3, 0.77, 1]) {
      const exact = diverging(t);
      const lut = divergingLut(t);
      for (let c = 0; c < 3; c++) expect(Math.abs(lut[c] - exact[c])).toBeLessThanOrEqual(1);
    }
    expect(divergingLut(Number.NaN)).toEqual(diverging(0));
    expect(divergingLut(7)).toEqual(diverging(1));
    expect(LUT_STEPS).toBeGreaterThanOrEqual(255);
  });

  it('draws 500 filters of 784 weights reading each weight once, each at its place in its colour', () => {
    const big = new Float32Array(784 * 500).map((_, i) => Math.sin(i));
    // Counts the reads of W: the work is one table look-up per weight, never more.
    let reads = 0;
    const counted = new Proxy(big, {
      get(target, key) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads += 1;
        return Reflect.get(target, key);
      },
    });
    const l = tileLayout(500, [28, 28], 560, { gap: 2 });
    const px = filterPixels(counted, 784, 500, l, 1);
    expect(reads).toBe(784 * 500);
    expect(px.data.length).toBe(4 * l.width * l.height);
    // Every weight of a few filters, first, middle and last, at unit i of tile k.
    for (const k of [0, 17, 250, 499]) {
      const [x0, y0] = tileOrigin(l, k);
      for (let i = 0; i < 784; i++) {
        const [x, y] = [x0 + (i % 28) * l.cell, y0 + Math.floor(i / 28) * l.cell];
        expect(at(px, x, y)).toEqual([...divergingLut(big[i * 500 + k]), 255]);
      }
    }
    // Opaque exactly where a filter is: 500 tiles of 784 cells.
    let opaque = 0;
    for (let a = 3; a < px.data.length; a += 4) if (px.data[a] === 255) opaque += 1;
    expect(opaque).toBe(500 * 784 * l.cell * l.cell);
  });
});

describe('grey pixels', () => {
  it('draws grey levels as ink on white, row k of the values as tile k, on a light background', () => {
    const values = [0, 1, 0.5, 1, /* tile 1: */ 1, 0, 0, 0];
    const l = tileLayout(2, [2, 2], 100, { cols: 2, gap: 1, maxCell: 1 });
    const px = greyPixels(values, 4, l);
    expect([px.width, px.height]).toEqual([5, 2]);
    expect(at(px, 0, 0)).toEqual([255, 255, 255, 255]);
    expect(at(px, 1, 0)).toEqual([34, 34, 34, 255]);
    expect(at(px, 0, 1)).toEqual([ink(0.5), ink(0.5), ink(0.5), 255]);
    expect(at(px, 2, 0)).toEqual(TILE_BACKGROUND); // the gap
    expect(at(px, 3, 0)).toEqual([34, 34, 34, 255]); // tile 1, unit 0
    expect(ink(-3)).toBe(255);
    expect(ink(7)).toBe(34);
  });
});
