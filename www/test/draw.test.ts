import { describe, expect, it } from 'vitest';
import { absMax, barScale, diverging, grid, patternShape, perRow } from '../src/views/draw';

describe('diverging colour map', () => {
  it('is white at 0, blue for negative, red for positive, and clamps', () => {
    expect(diverging(0)).toEqual([247, 247, 247]);
    expect(diverging(-1)).toEqual([33, 102, 172]);
    expect(diverging(1)).toEqual([178, 24, 43]);
    expect(diverging(-5)).toEqual(diverging(-1));
    expect(diverging(Number.NaN)).toEqual(diverging(0));
  });
  it('is symmetric in intensity', () => {
    const [r1, , b1] = diverging(0.5);
    const [r2, , b2] = diverging(-0.5);
    expect(r1).toBeGreaterThan(b1);
    expect(b2).toBeGreaterThan(r2);
  });
});

describe('layout helpers', () => {
  it('tiles 16 hidden units as 4×4 and 10 as 4 columns', () => {
    expect(grid(16)).toEqual({ cols: 4, rows: 4 });
    expect(grid(10)).toEqual({ cols: 4, rows: 3 });
    expect(grid(1)).toEqual({ cols: 1, rows: 1 });
  });
  it("uses the data set's image shape when it fits, else one row", () => {
    expect(patternShape(16, [4, 4])).toEqual([4, 4]);
    expect(patternShape(9, [4, 4])).toEqual([1, 9]);
    expect(patternShape(9, null)).toEqual([1, 9]);
  });
  it('wraps 30 patterns into two rows of 15', () => {
    expect(perRow(30)).toBe(15);
    expect(perRow(14)).toBe(14);
  });
  it('scales colours and bars by the largest magnitude', () => {
    expect(absMax(new Float32Array([0.5, -2, 1]))).toBe(2);
    expect(absMax([])).toBeGreaterThan(0);
    expect(barScale({ model: [0.1, 0.2], data: [0.5, 0.5], on: 0.3, off: 0.7, log_z: 0 })).toBe(0.5);
    // A model piling its mass on one pattern: the scale stops at 1.5× the data's largest
    // frequency, so the data outlines keep two thirds of the height (the tall bar is clipped).
    expect(barScale({ model: [0.9, 0.01], data: [0.1, 0.1], on: 0.91, off: 0.09, log_z: 0 })).toBeCloseTo(0.15, 12);
    expect(barScale({ model: [0.12, 0.01], data: [0.1, 0.1], on: 0.13, off: 0.87, log_z: 0 })).toBe(0.12);
    expect(barScale({ model: [0, 0], data: [0, 0], on: 0, off: 1, log_z: 0 })).toBe(1e-9);
  });
});
