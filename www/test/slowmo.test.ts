import { describe, expect, it } from 'vitest';
import type { Trace } from '../src/generated/core';
import { phaseCaptions, SLOW_MOTION_UNITS } from '../src/views/panels/slowmo';

const trace = (n: number, states: number): Trace => ({
  iter: 1200,
  m: 4,
  n,
  lr: 0.1,
  rows: 8,
  batch: [],
  hidden_probs: [],
  chains: states ? 8 : 0,
  sweeps: Array.from({ length: states }, () => new Array(32).fill(0)),
  positive: [],
  negative: [],
  delta_w: [0.002, -0.004],
});

describe('slow-motion captions', () => {
  it('number the five phases and say what each shows', () => {
    const c = phaseCaptions(trace(16, 2), 1);
    expect(c.map((x) => x[0])).toEqual(['①', '②', '③', '④', '⑤']);
    expect(c[1]).toMatch(/one strip of 16 hidden units per row/);
    expect(c[2]).toMatch(/after its Gibbs sweep \(one row per sweep\)/);
    expect(c[3]).toMatch(/for each of the 16 hidden units/);
    expect(c[4]).toBe(
      '⑤ The change ΔW = η·(data − model) with η = 0.100, as tiles for each of the 16 hidden units: red up, blue down (scale ±0.0040). Update 1,200 is done.',
    );
  });

  it('say how many sweeps of k are shown, how many units of a wide model, and when the sampler is not traced', () => {
    expect(phaseCaptions(trace(16, 34), 50)[2]).toMatch(/after each of the first 33 of 50 Gibbs sweeps/);
    expect(phaseCaptions(trace(16, 4), 3)[2]).toMatch(/after each of the first 3 Gibbs sweeps/);
    expect(phaseCaptions(trace(500, 2), 1)[3]).toMatch(new RegExp(`the first ${SLOW_MOTION_UNITS} of the 500 hidden units`));
    expect(phaseCaptions(trace(16, 0), 1)[2]).toMatch(/not traced sweep by sweep/);
  });
});
