import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain script module (scripts/lib), without types
import { benchPoints, estimatorsSvg } from '../../scripts/lib/estimatorsPlot.mjs';

const line = (method: string, betas: number, sweeps: number, mean: number, sd: number) => ({
  method,
  schedule: 'linear',
  betas,
  sweeps,
  atll_error_mean: mean,
  atll_error_sd: sd,
  visible: 16,
  hidden: 8,
  data: 'bas4',
  runs: 10,
  seed: 1,
  exact_atll: -3.5,
  protocol: 'binary',
});

describe("the estimator bench's figure", () => {
  const lines = [line('ais', 1000, 99_900, -0.004, 0.023), line('ais', 100, 9_900, -0.02, 0.03), line('bar-pt', 10, 120_000, 0.004, 0.011)];

  it("groups each method's settings by compute, with the line's own numbers", () => {
    const p = benchPoints(lines);
    expect(Object.keys(p)).toEqual(['ais', 'bar-pt']);
    expect(p.ais.map((x: { sweeps: number }) => x.sweeps)).toEqual([9_900, 99_900]);
    expect(p['bar-pt'][0]).toEqual({ sweeps: 120_000, mean: 0.004, sd: 0.011, label: '10 T' });
  });

  it('draws one point with its ± sd bar per setting, a legend entry per method, and the set-up in the title', () => {
    const svg: string = estimatorsSvg(lines);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/<circle cx="[\d.]+" cy="[\d.]+" r="3.5"/g)).toHaveLength(3);
    expect(svg).toContain('AIS 100 β: -0.0200 ± 0.0300 at 9900 sweeps');
    expect(svg).toContain('BAR over PT');
    expect(svg).toContain('16×8 model on bas4, 10 runs per setting (seed 1)');
  });

  it('refuses lines that are not the bench’s', () => {
    expect(() => estimatorsSvg([{ type: 'header' }])).toThrow(/not a line of rbm estimators/);
    expect(() => estimatorsSvg([])).toThrow(/no bench lines/);
  });
});
