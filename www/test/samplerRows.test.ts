import { describe, expect, it } from 'vitest';
import { addSlice, CLASS_HISTORY, emptyRow, islColumns, STRIP_LENGTH, samplesPerSecond } from '../src/views/samplerRows';

const mixing = { samples: 0, classes: 0, changes: 0, mean_run: 0 };

describe('sampler rows', () => {
  it('keep the last strip images and classes, and every ISL point', () => {
    const row = emptyRow();
    for (let i = 0; i < STRIP_LENGTH + 5; i++) {
      addSlice(row, {
        image: new Float32Array([i]),
        classes: new Array(50).fill(i % 10),
        isl: i === 3 ? [{ n: 5, isl: -200, beta: 0.9 }] : [],
        mixing,
        emitted: 10 * (i + 1),
        seconds: i + 1,
      });
    }
    expect(row.strip.length).toBe(STRIP_LENGTH);
    expect(row.strip[0][0]).toBe(5);
    expect(row.classes.length).toBe(CLASS_HISTORY);
    expect(row.classes.at(-1)).toBe((STRIP_LENGTH + 4) % 10);
    expect(row.isl).toEqual([{ n: 5, isl: -200, beta: 0.9 }]);
    expect(samplesPerSecond(row)).toBe(10);
    expect(samplesPerSecond(emptyRow())).toBeNull();
  });

  it('align curves on the union of their sample counts', () => {
    const p = (n: number, isl: number) => ({ n, isl, beta: 0.9 });
    const cols = islColumns([[p(1, -300), p(10, -250)], [p(1, -310)]], [p(1, -400), p(8000, -170)]);
    expect(cols).toEqual([
      [1, 10, 8000],
      [-300, -250, null],
      [-310, null, null],
      [-400, null, -170],
    ]);
  });
});
