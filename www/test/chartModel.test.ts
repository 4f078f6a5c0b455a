import { describe, expect, it } from 'vitest';
import { collapsed } from '../src/app/curve';
import { Study, type TrialPoint } from '../src/app/study';
import {
  belowChart,
  belowText,
  cursorStep,
  curvesModel,
  FALL_SPANS,
  formatAtll,
  formatValue,
  formatX,
  interpolate,
  likelihoodLabel,
  modelRange,
  readout,
  statModel,
  studyModel,
  withAlpha,
} from '../src/views/chartModel';
import { statLabel, studyStats } from '../src/views/studyView';

describe('interpolate', () => {
  it('reads a line through its points at every x of the grid, null outside its range', () => {
    expect(interpolate([0, 10, 20], [-11, -9, -8], [0, 5, 10, 15, 20, 25])).toEqual([-11, -10, -9, -8.5, -8, null]);
    expect(interpolate([], [], [0, 1])).toEqual([null, null]);
    expect(interpolate([0, 10], [-Infinity, -5], [0, 10])).toEqual([null, -5]);
  });
});

describe('curvesModel', () => {
  it('puts lanes whose x values do not line up on one grid, each with a value wherever it has a line', () => {
    const a = { iter: [0, 10, 20], sweeps: [0, 10, 20], atll: [-11, -9, -8] };
    const b = { iter: [0, 20], sweeps: [0, 60], atll: [-11, -7] };
    const m = curvesModel(
      [
        { label: 'A', colour: '#0072B2', curve: a },
        { label: 'B', colour: '#D55E00', curve: b },
      ],
      'sweeps',
      -3,
    );
    expect(m.x).toEqual([0, 10, 20, 60]);
    expect(m.ys[0]).toEqual([-11, -9, -8, null]);
    expect(m.ys[1][1]).toBeCloseTo(-11 + 4 / 6, 12);
    expect(m.series.map((s) => s.role)).toEqual(['curve', 'curve', 'bound']);
    const r = readout(m, 1, 'sweeps');
    expect(r.x).toBe('10');
    expect(r.rows.map((row) => row.text)).toEqual(['−9.000', '−10.333', '−3.000']);
    expect(readout(m, null, 'sweeps').rows[0].text).toBe('−8.000');
    expect(modelRange(m)![0]).toBeLessThan(-11);
  });
});

describe('the y axis when a lane explodes', () => {
  const lane = (label: string, atll: number[]) => ({
    label,
    colour: '#0072B2',
    curve: { iter: atll.map((_, i) => 10 * i), sweeps: atll.map((_, i) => 10 * i), atll },
  });

  it('stops FALL_SPANS rises below the lanes’ start: the diverged lane runs off the chart, marked, and the others stay readable', () => {
    const m = curvesModel([lane('CD-1', [-11, -6, -4]), lane('PCD (lane 1)', [-11, -9, -3.7e9])], 'iter', -3.379);
    const [lo, hi] = modelRange(m)!;
    const floor = -11 - FALL_SPANS * (-3.379 - -11);
    expect(lo).toBeLessThan(floor);
    expect(lo).toBeGreaterThan(floor - 0.1 * (hi - floor));
    expect(hi).toBeGreaterThan(-3.379);
    const below = belowChart(m, [lo, hi]);
    expect(below).toEqual([{ label: 'PCD (lane 1)', colour: '#0072B2', min: -3.7e9 }]);
    expect(belowText(below)).toBe(
      "▼ Below the chart: PCD (lane 1) (down to −3.7·10⁹). The axis stops at 4× the lanes' rise below their start, so the others stay readable.",
    );
  });

  it('keeps a real fall in range (CD-1 back from −5 to −18) and marks nothing', () => {
    const m = curvesModel([lane('CD-1', [-11, -5, -18])], 'iter', -3.379);
    const r = modelRange(m)!;
    expect(r[0]).toBeLessThan(-18);
    expect(belowChart(m, r)).toEqual([]);
    expect(belowText([])).toBe('');
  });

  it('formats values of any size for people', () => {
    expect(formatValue(-3.7e9)).toBe('−3.7·10⁹');
    expect(formatValue(-123456)).toBe('−1.2·10⁵');
    expect(formatValue(-4.25)).toBe('−4.250');
  });
});

describe('studyModel', () => {
  it('draws per lane the median, the q10–q90 band (and q2.5–q97.5 when asked) and a few single trials', () => {
    const s = new Study({ lanes: [{ id: 0, label: 'CD-1', claimLabel: null, stats: [] }], runs: 4, until: 10, every: 10, seed: 1 });
    for (let i = 0; i < 4; i++) {
      const t = s.next()!;
      const pts: TrialPoint[] = [
        { iter: 0, sweeps: 0, atll: -10, stats: {}, ms: 0 },
        { iter: 10, sweeps: 10, atll: -5 - i, stats: {}, ms: 1 },
      ];
      s.add(t, pts, 1);
      s.finish(t, 1);
    }
    const m = studyModel(s, [{ label: 'CD-1', colour: '#0072B2' }], 'iter', false, null, 2);
    expect(m.series.map((x) => x.role)).toEqual(['trial', 'trial', 'q90', 'q10', 'median']);
    expect(m.bands).toEqual([{ upper: 2, lower: 3, fill: 'rgba(0, 114, 178, 0.18)' }]);
    expect(m.ys[4]).toEqual([-10, -6.5]);
    const wide = studyModel(s, [{ label: 'CD-1', colour: '#0072B2' }], 'iter', true, -2, 0);
    expect(wide.series.map((x) => x.role)).toEqual(['q975', 'q025', 'q90', 'q10', 'median', 'bound']);
    expect(wide.bands.map((b) => [b.upper, b.lower])).toEqual([
      [0, 1],
      [2, 3],
    ]);
    expect(readout(m, 1, 'iter').rows[0]).toEqual({ label: 'CD-1', colour: '#0072B2', text: '−6.500 (q10–q90 −7.700 … −5.300)' });
  });
  it("draws a dashed lane's median dashed, and its readout swatch dashed too (issue 27)", () => {
    const s = new Study({ lanes: [{ id: 6, label: 'CD-1', claimLabel: null, stats: [] }], runs: 1, until: 10, every: 10, seed: 1 });
    const t = s.next()!;
    s.add(t, [{ iter: 0, sweeps: 0, atll: -10, stats: {}, ms: 0 }], 1);
    const m = studyModel(s, [{ label: 'CD-1', colour: '#0072B2', dash: [8, 4] }], 'iter', false, null, 0);
    expect(m.series.find((x) => x.role === 'median')?.dash).toEqual([8, 4]);
    expect(readout(m, 0, 'iter').rows[0].dash).toEqual([8, 4]);
  });
});

describe('numbers for people', () => {
  it('prints x whole with thin spaces, small sweeps to 3 digits, ATLL to 3 decimals', () => {
    expect(formatX(7974.973999999997, 'sweeps')).toBe('7\u202f975');
    expect(formatX(12.3456, 'sweeps')).toBe('12.3');
    expect(formatX(10000, 'iter')).toBe('10\u202f000');
    expect(formatX(null, 'iter')).toBe('–');
    expect(formatAtll(-3.14259)).toBe('−3.143');
    expect(formatAtll(-Infinity)).toBe('diverged');
    expect(formatAtll(null)).toBe('–');
    expect(withAlpha('#000000', 0.5)).toBe('rgba(0, 0, 0, 0.5)');
  });
});

describe('statModel', () => {
  it("draws a statistic's median and q10–q90 band across trials, for the lanes that report it", () => {
    const stats = [{ key: 'mean_tau', label: 'mean stopping time τ', unit: 'steps', help: '', over_updates: 'mean' as const, over_trials: 'mean' as const }];
    const s = new Study({
      lanes: [
        { id: 0, label: 'CD-1', claimLabel: null, stats: [] },
        { id: 2, label: 'UCD', claimLabel: null, stats },
      ],
      runs: 3,
      until: 10,
      every: 10,
      seed: 1,
    });
    for (let t = s.next(); t; t = s.next()) {
      const tau: Record<string, number> = t.lane === 1 ? { mean_tau: 2 + t.index } : {};
      s.add(
        t,
        [
          { iter: 0, sweeps: 0, atll: -10, stats: {}, ms: 0 },
          { iter: 10, sweeps: 10, atll: -9, stats: tau, ms: 1 },
        ],
        1,
      );
      s.finish(t, 1);
    }
    const m = statModel(
      s,
      [
        { label: 'CD-1', colour: '#0072B2' },
        { label: 'UCD', colour: '#009E73' },
      ],
      'mean_tau',
      'iter',
    );
    expect(m.series.map((x) => [x.label, x.role])).toEqual([
      ['UCD q90', 'q90'],
      ['UCD q10', 'q10'],
      ['UCD median', 'median'],
    ]);
    expect(m.x).toEqual([10]);
    expect(m.ys.map((c) => c[0])).toEqual([3.8, 2.2, 3]);
    expect(studyStats(s.plan.lanes).map((x) => [x.spec.key, x.lanes])).toEqual([['mean_tau', ['UCD']]]);
    expect(statLabel(stats[0])).toBe('mean stopping time τ, steps');
  });
});

describe('curvesModel: AIS brackets (issue 27)', () => {
  const side = (atll: number) => ({ atll, atll_lo: atll - 0.5, atll_hi: atll + 0.5 });
  const brackets = [
    { iter: 0, sweeps: 0, ais: side(-200), raise: side(-202) },
    { iter: 40, sweeps: 960, ais: side(-120), raise: side(-123) },
  ];
  const empty = { iter: [], sweeps: [], atll: [] };

  it('draws a lane without an exact curve as points at its brackets, with error bars from RAISE to AIS', () => {
    const m = curvesModel([{ label: 'CD-24', colour: '#0072B2', curve: empty, brackets }], 'sweeps', null);
    expect(m.series.map((s) => s.role)).toEqual(['ais']);
    expect(m.x).toEqual([0, 960]);
    expect(m.ys[0]).toEqual([-200, -120]);
    expect(m.errorBars).toEqual([
      { series: 0, x: 0, lo: -202.5, hi: -199.5 },
      { series: 0, x: 960, lo: -123.5, hi: -119.5 },
    ]);
    const r = modelRange(m)!;
    expect(r[0]).toBeLessThan(-202.5);
    expect(r[1]).toBeGreaterThan(-119.5);
    expect(readout(m, null, 'sweeps').rows[0].text).toBe('−120.000 [−123.500, −119.500]');
    expect(readout(m, 0, 'sweeps').rows[0].text).toBe('−200.000 [−202.500, −199.500]');
  });

  it("keeps the points apart (no line through them) beside another lane's exact curve", () => {
    const exact = { iter: [0, 20, 40], sweeps: [0, 20, 40], atll: [-210, -150, -130] };
    const m = curvesModel(
      [
        { label: 'A', colour: '#0072B2', curve: exact },
        { label: 'B', colour: '#BB5511', curve: empty, brackets },
      ],
      'iter',
      null,
    );
    expect(m.series.map((s) => s.role)).toEqual(['curve', 'ais']);
    expect(m.x).toEqual([0, 20, 40]);
    expect(m.ys[1]).toEqual([-200, null, -120]);
    expect(likelihoodLabel([{ curve: exact, aisEvery: null, brackets: [] }])).toBeUndefined();
    expect(likelihoodLabel([{ curve: empty, aisEvery: 40, brackets: [] }])).toMatch(/AIS/);
  });
});

describe('a collapsed lane (issue 27)', () => {
  const curve = (atll: number[]) => ({ iter: atll.map((_, i) => i), sweeps: atll.map((_, i) => i), atll });
  it('is one whose latest point fell more than 4 rises below its first (η = 10⁹: −3.6·10⁹)', () => {
    expect(collapsed(curve([-11.09, -3.6e9]))).toEqual({ start: -11.09, last: -3.6e9 });
    expect(collapsed(curve([-11.09, -8, -40]))).toEqual({ start: -11.09, last: -40 }); // rise 3.09: floor −23.45
    expect(collapsed(curve([-11.09, -5, -18]))).toBeNull(); // CD-1's fall on Bars & Stripes stays a fall
    expect(collapsed(curve([-11.09, -Infinity]))).toEqual({ start: -11.09, last: -Infinity });
    expect(collapsed(curve([-11.09]))).toBeNull();
    expect(collapsed(curve([]))).toBeNull();
  });
});

describe('the chart by keyboard (issue 27)', () => {
  it('moves a cursor over the columns with the arrows (Shift: ten), Home and End; Escape leaves', () => {
    expect(cursorStep(null, 5, 'ArrowRight')).toBe(0);
    expect(cursorStep(null, 5, 'ArrowLeft')).toBe(4);
    expect(cursorStep(2, 5, 'ArrowRight')).toBe(3);
    expect(cursorStep(4, 5, 'ArrowRight')).toBe(4);
    expect(cursorStep(0, 5, 'ArrowLeft')).toBe(0);
    expect(cursorStep(1, 30, 'ArrowRight', true)).toBe(11);
    expect(cursorStep(3, 30, 'ArrowLeft', true)).toBe(0);
    expect(cursorStep(3, 30, 'Home')).toBe(0);
    expect(cursorStep(3, 30, 'End')).toBe(29);
    expect(cursorStep(3, 30, 'Escape')).toBeNull();
    expect(cursorStep(null, 0, 'ArrowRight')).toBeNull();
    expect(cursorStep(3, 30, 'a')).toBeUndefined();
  });
});
