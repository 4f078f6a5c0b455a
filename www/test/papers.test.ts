import { describe, expect, it } from 'vitest';
import { studyTaus } from '../src/app/study';
import type { GradResult } from '../src/generated/core';
import { analysisProgress, startingAnalysis } from '../src/protocol/analyses';
import { chainCaption, chainColumns } from '../src/views/panels/chainTime';
import { addGradPoint, gradColumns, gradDue, gradPoint, gradText } from '../src/views/panels/gradError';
import { tauCaption, tauColumns } from '../src/views/panels/tauHistogram';
import { pngName, slug } from '../src/views/png';

const grad = (iter: number, bias: number | null, se: number, cosine: number | null = 0.9): GradResult => ({
  iter,
  seed: 1,
  summary: { bias_norm: bias, cosine, std_err_norm: se, exact_norm: bias === null ? null : 1 },
  estimate: { algo: 'cd', chains: 10, reps: 20, blocks: [] },
});

describe('gradient error over training', () => {
  it('asks every `every` updates from the start, never at 0 or when off', () => {
    expect(gradDue(1000, 0, Number.NEGATIVE_INFINITY)).toBe(false);
    expect(gradDue(1000, 5, Number.NEGATIVE_INFINITY)).toBe(true);
    expect(gradDue(1000, 1004, 5)).toBe(false);
    expect(gradDue(1000, 1005, 5)).toBe(true);
    expect(gradDue(0, 10_000, Number.NEGATIVE_INFINITY)).toBe(false);
  });

  it('keeps a history sorted by update, one point per update, bias in standard errors', () => {
    const p = gradPoint(grad(200, 0.6, 0.2))!;
    expect(p).toEqual({ iter: 200, bias: 0.6, cosine: 0.9, stdErr: 0.2, ratio: expect.closeTo(3, 12) });
    expect(gradPoint(grad(1, null, 0.2))).toBeNull();
    let h = addGradPoint([], p);
    h = addGradPoint(h, gradPoint(grad(100, 0.1, 0.2))!);
    h = addGradPoint(h, gradPoint(grad(200, 0.3, 0.2))!);
    expect(h.map((q) => [q.iter, q.bias])).toEqual([
      [100, 0.1],
      [200, 0.3],
    ]);
    const cols = gradColumns(h);
    expect(cols.x).toEqual([100, 200]);
    expect(cols.ys).toEqual([
      [0.1, 0.3],
      [0.2, 0.2],
      [0.4, 0.4],
      [0.9, 0.9],
    ]);
    expect(gradText(h[0], 20)).toMatch(/update 100 over 20 repetitions: bias 0\.100 \(within two standard errors/);
    expect(gradText(p, 20)).toMatch(/3\.00 standard errors: biased\), cosine to the exact gradient 0\.900/);
  });

  it('reports progress in steps', () => {
    const r = { ...startingAnalysis('chain'), done: 12, total: 50 };
    expect(analysisProgress(r, 'sweeps')).toBe('sweeps 12 / 50 (24 %)');
    expect(analysisProgress({ ...startingAnalysis('grad'), done: 1, total: 100 }, 'repetitions')).toBe('repetitions 1 / 100 (1 %)');
  });
});

describe('the exact chain view', () => {
  const r = {
    iter: 300,
    points: [
      { k: 0, tv_model: 0.5, kl_model: 2, tv_data: 0 },
      { k: 1, tv_model: 0.3, kl_model: 1, tv_data: 0.2 },
      { k: 2, tv_model: 0.1, kl_model: 0.1, tv_data: 0.45 },
    ],
  };
  it('plots k against TV to the model, TV to the data and KL', () => {
    expect(chainColumns(r)).toEqual({
      x: [0, 1, 2],
      ys: [
        [0.5, 0.3, 0.1],
        [0, 0.2, 0.45],
        [2, 1, 0.1],
      ],
    });
  });
  it("says what the chart shows and CD-1's distance", () => {
    const c = chainCaption(r, 'data');
    expect(c).toMatch(/update 300/);
    expect(c).toMatch(/0\.500 at k = 0, 0\.100 at k = 2/);
    expect(c).toMatch(/After one sweep \(CD-1's negative phase\) it is still 0\.300 from the model/);
    expect(chainCaption(r, 'uniform')).not.toMatch(/CD-1/);
  });
});

describe('the τ histogram', () => {
  it('turns counts by τ into shares, with mean and largest τ', () => {
    const c = tauColumns([0, 6, 3, 0, 1]);
    expect(c).toEqual({ x: [1, 2, 3, 4], share: [0.6, 0.3, 0, 0.1], chains: 10, mean: (6 + 6 + 4) / 10, max: 4 });
    expect(tauCaption(c, 1200)).toMatch(/10 chains of update 1,200: mean 1\.60 steps, largest 4 steps/);
    expect(tauColumns([0])).toMatchObject({ chains: 0, mean: 0, max: 0 });
  });

  it("sums a lane's trials' latest counts", () => {
    const trial = (taus?: { iter: number; counts: number[] }) => ({
      lane: 0,
      index: 0,
      state: 'running' as const,
      points: [],
      diverged: false,
      message: null,
      ms: 0,
      ...(taus ? { taus } : {}),
    });
    const study = {
      trials: [
        [trial({ iter: 100, counts: [0, 2, 1] }), trial(), trial({ iter: 140, counts: [0, 1, 0, 3] })],
        [trial(), trial()],
      ],
    };
    expect(studyTaus(study, 0)).toEqual({ counts: [0, 3, 1, 3], trials: 2, from: 100, to: 140 });
    expect(studyTaus(study, 1)).toBeNull();
    expect(studyTaus(study, 7)).toBeNull();
  });
});

describe('PNG file names', () => {
  it('name the preset, lane and chart in file-name-safe words', () => {
    expect(slug('UCD bas4 / CD-1 (η 0.1)')).toBe('ucd-bas4-cd-1-0-1');
    expect(pngName('ucd-bas4', '', null, 'CD-1', 'chain time')).toBe('rbm-ucd-bas4-cd-1-chain-time.png');
    expect(slug('…')).toBe('chart');
  });
});
