import { describe, expect, it } from 'vitest';
import {
  addSlice,
  CLASS_HISTORY,
  deviceLabel,
  emptyRow,
  gpuFallbackMessage,
  islColumns,
  STRIP_LENGTH,
  samplerConfigs,
  samplersOn,
  samplesPerSecond,
} from '../src/views/samplerRows';
import { samplers } from './fixture';

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

  it("read k, ε_F and α as the lanes' inputs are read: NaN, 1e400 and text are refused with the option's words, empty is the sampler's own", () => {
    const fpcd = samplers.find((s) => s.name === 'rates-fpcd')!;
    const read = (texts: Record<string, string>) => samplerConfigs([fpcd], (_, key) => texts[key]);
    expect(read({ k: '3', eps_f: '0.5', alpha: '' })).toEqual({ configs: [{ sampler: 'rates-fpcd', k: 3, eps_f: 0.5 }], refused: new Map() });
    const bad = read({ k: 'NaN', eps_f: '1e400', alpha: 'abc' });
    expect(bad.refused).toEqual(
      new Map([
        ['rates-fpcd.k', "steps between samples k must be a whole number from 1 to 10000, got 'NaN'"],
        ['rates-fpcd.eps_f', "fast step ε_F must be a number from 0 to 100, got '1e400'"],
        ['rates-fpcd.alpha', "fast decay α must be a number from 0 to 1, got 'abc'"],
      ]),
    );
    expect(read({ k: '2.5' }).refused.get('rates-fpcd.k')).toMatch(/whole number/);
    // The options the view has no input for (the herding cap) are the sampler's own.
    expect(read({}).configs).toEqual([{ sampler: 'rates-fpcd' }]);
  });
});

describe('where the samplers run (issue 30)', () => {
  it('the GPU by default where the browser has an adapter, the choice where one is made, never the GPU without one', () => {
    expect(samplersOn(null, 'SwiftShader')).toBe('gpu');
    expect(samplersOn('cpu', 'SwiftShader')).toBe('cpu');
    expect(samplersOn('gpu', 'SwiftShader')).toBe('gpu');
    expect(samplersOn(null, null)).toBe('cpu');
    expect(samplersOn('gpu', null)).toBe('cpu');
  });

  it('label the samples with their device and say why a GPU run went to the CPU', () => {
    expect(deviceLabel(null)).toBe('CPU (wasm)');
    expect(deviceLabel('SwiftShader Device')).toBe('GPU (WebGPU: SwiftShader Device)');
    expect(gpuFallbackMessage('the device was lost.', true)).toBe('The GPU stopped (the device was lost): the samplers start again on the CPU.');
    expect(gpuFallbackMessage('this browser offers no WebGPU', false)).toBe(
      'The GPU could not run the samplers (this browser offers no WebGPU): they run on the CPU.',
    );
    expect(gpuFallbackMessage('  ', false)).toMatch(/\(no reason given\)/);
  });
});
