import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AisEstimate } from '../src/generated/core';
import {
  betaChoice,
  betasText,
  bracketRange,
  bracketVerdict,
  estimateDataset,
  formatEstimateProgress,
  formatNats,
  formatSide,
  inBracket,
  stepsPerMethod,
} from '../src/protocol/estimate';

const side = (method: 'ais' | 'raise', atll: number, half: number): AisEstimate => ({
  log_z: 0,
  log_z_lo: 0,
  log_z_hi: 0,
  atll,
  atll_lo: atll - half,
  atll_hi: atll + half,
  method,
  particles: 100,
  betas: 1000,
  seed: 1,
  rows: 1000,
  base_log_z: 0,
  thresholded: true,
  ess: null,
  iter: 0,
  dataset: 'mnist-test',
  gpu: null,
});

describe('the AIS / RAISE bracket', () => {
  it('evaluates the test split of MNIST, else the lane’s own data', () => {
    expect(estimateDataset('mnist')).toBe('mnist-test');
    expect(estimateDataset('bas4')).toBe('bas4');
    expect(estimateDataset('mnist-valid')).toBe('mnist-valid');
  });

  it('counts steps in blocks of 25 chains', () => {
    expect(stepsPerMethod({ particles: 100, betas: 1000 })).toBe(4 * 999);
    expect(stepsPerMethod({ particles: 60, betas: 40 })).toBe(3 * 39);
  });

  it('formats nats with a true minus sign, and open bars as −∞', () => {
    expect(formatNats(-87.1234)).toBe('−87.12');
    expect(formatNats(Number.NEGATIVE_INFINITY)).toBe('−∞');
    expect(formatNats(Number.NaN)).toBe('–');
    expect(formatSide(side('ais', -87, 0.5))).toBe('AIS −87.00 [−87.50, −86.50]');
    expect(formatSide(side('raise', -88, 1))).toBe('RAISE −88.00 [−89.00, −87.00]');
    expect(formatEstimateProgress(1200, 7992)).toBe('β steps 1,200 / 7,992 (15 %)');
  });

  it('widens the bracket by both bars and says where the exact value lies', () => {
    const ais = side('ais', -87, 0.5);
    const raise = side('raise', -88, 1);
    expect(bracketRange(ais, raise)).toEqual([-89, -86.5]);
    expect(inBracket(-87.5, ais, raise)).toBe(true);
    expect(inBracket(-86, ais, raise)).toBe(false);
    expect(bracketVerdict(-87.5, ais, raise)).toBe('exact −87.50, inside the bracket; RAISE ≤ AIS, as expected');
    expect(bracketVerdict(null, raise, ais)).toBe('RAISE and AIS agree within their bars');
    expect(bracketVerdict(null, side('ais', -90, 0.5), raise)).toBe('RAISE above AIS: anneal longer (more β)');
  });

  it('the bracket always holds both estimates (property)', () => {
    const finite = fc.double({ min: -1e4, max: 0, noNaN: true });
    const half = fc.double({ min: 0, max: 100, noNaN: true });
    fc.assert(
      fc.property(finite, half, finite, half, (a, ha, r, hr) => {
        const ais = side('ais', a, ha);
        const raise = side('raise', r, hr);
        const [lo, hi] = bracketRange(ais, raise);
        return lo <= hi && inBracket(a, ais, raise) && inBracket(r, ais, raise);
      }),
    );
  });
});

describe("Salakhutdinov & Murray's schedule in the β select", () => {
  it('reads its choice as 14 501 β with the schedule, any other as a linear count, and says which', () => {
    expect(betaChoice('sm2008')).toEqual({ betas: 14_501, schedule: 'sm2008' });
    expect(betaChoice('1000')).toEqual({ betas: 1000 });
    expect(betasText({ betas: 14_501, schedule: 'sm2008' })).toBe("14,501 β (Salakhutdinov & Murray's schedule)");
    expect(betasText({ betas: 1000 })).toBe('1,000 β');
  });
});
