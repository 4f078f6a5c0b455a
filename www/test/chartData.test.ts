import { describe, expect, it } from 'vitest';
import { chartColumns, laneColour, yRange } from '../src/chartData';

const a = { iter: [0, 10, 20], sweeps: [0, 10, 20], atll: [-11, -9, -8] };
const b = { iter: [0, 20], sweeps: [0, 60], atll: [-11, -7] };

describe('chartColumns', () => {
  it('aligns lanes on the union of their x values, with gaps as null, and adds the bound', () => {
    expect(chartColumns([a, b], 'iter', -3.379)).toEqual({
      x: [0, 10, 20],
      ys: [
        [-11, -9, -8],
        [-11, null, -7],
        [-3.379, -3.379, -3.379],
      ],
    });
  });
  it('uses Gibbs sweeps on the equal-compute axis', () => {
    expect(chartColumns([a, b], 'sweeps', null)).toEqual({
      x: [0, 10, 20, 60],
      ys: [
        [-11, -9, -8, null],
        [-11, null, null, -7],
      ],
    });
  });
  it('handles no lanes and empty curves', () => {
    expect(chartColumns([], 'iter', null)).toEqual({ x: [], ys: [] });
    expect(chartColumns([{ iter: [], sweeps: [], atll: [] }], 'iter', -2)).toEqual({ x: [], ys: [[], []] });
  });
});

describe('yRange', () => {
  it('covers every point and the bound, with room', () => {
    const [lo, hi] = yRange(chartColumns([a, b], 'iter', -3.379))!;
    expect(lo).toBeLessThan(-11);
    expect(hi).toBeGreaterThan(-3.379);
  });
  it('is null without points', () => {
    expect(yRange({ x: [], ys: [] })).toBeNull();
  });
});

it('gives lanes distinct colours', () => {
  expect(new Set([0, 1, 2, 3, 4, 5, 6].map(laneColour)).size).toBe(7);
});
