import { describe, expect, it } from 'vitest';
import { appendStats, emptyStatCurve } from '../src/app/curve';
import { tauHistory, tauHistoryCaption } from '../src/views/panels/tauHistory';

describe("a live UCD lane's τ history (issue 27)", () => {
  it('keeps every record’s statistics in update order and draws mean and largest τ from them', () => {
    const c = emptyStatCurve();
    appendStats(c, [
      { iter: 0, sweeps: 0, stats: { mean_tau: 1.5, max_tau: 3 } },
      { iter: 100, sweeps: 240, stats: { mean_tau: 2.75, max_tau: 9 } },
    ]);
    appendStats(c, [
      { iter: 100, sweeps: 240, stats: { mean_tau: 99, max_tau: 99 } }, // a repeat: dropped
      { iter: 200, sweeps: 480, stats: { mean_tau: 2.25, max_tau: 7 } },
    ]);
    const h = tauHistory(c)!;
    expect(h).toEqual({ x: [0, 100, 200], mean: [1.5, 2.75, 2.25], max: [3, 9, 7] });
    expect(tauHistoryCaption(h)).toMatch(/^Mean τ of each record .*: highest 2\.75 at update 100, now 2\.25 at update 200;/);
    // Thinned like a curve past its limit, keeping the last.
    const long = emptyStatCurve();
    appendStats(
      long,
      Array.from({ length: 11 }, (_, i) => ({ iter: i, sweeps: i, stats: { mean_tau: i } })),
      10,
    );
    expect(long.iter.length).toBeLessThanOrEqual(10);
    expect(long.iter.at(-1)).toBe(10);
  });

  it('is none for a lane without τ (CD) or with one record only', () => {
    const c = emptyStatCurve();
    appendStats(c, [
      { iter: 0, sweeps: 0, stats: { rejections: 0 } },
      { iter: 1, sweeps: 1, stats: { rejections: 1 } },
    ]);
    expect(tauHistory(c)).toBeNull();
    const one = emptyStatCurve();
    appendStats(one, [{ iter: 0, sweeps: 0, stats: { mean_tau: 2 } }]);
    expect(tauHistory(one)).toBeNull();
  });
});
