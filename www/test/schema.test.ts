import { describe, expect, it } from 'vitest';
import type { OptionEntry } from '../src/generated/core';
import { defaultValue, formatValue, isValid, laneOptionKeys, laneOptions, parseOption, rangeText, sharedOptions } from '../src/protocol/schema';
import { catalog } from './fixture'; // the core's catalog; regenerate: node www/test/fixtures/update-catalog.mjs

/** Texts each kind of option must refuse. */
function badTexts(spec: OptionEntry): string[] {
  const k = spec.kind;
  switch (k.type) {
    case 'int':
      return ['1.5', 'two', '0x10', String(k.max + 1), ...(k.min > 0 ? [String(k.min - 1)] : ['-1'])];
    case 'float':
      return ['fast', '1e400', 'NaN', String(k.min - 1), String(k.max * 2 + 1), ...(k.max_open ? [String(k.max)] : [])];
    case 'choice':
      return ['nope', `${k.choices[0]}x`];
  }
}

describe('the catalog fixture', () => {
  it('is a realistic catalog: every algorithm, shared and per-lane options of every kind', () => {
    expect(catalog.algorithms.map((a) => a.name)).toEqual(expect.arrayContaining(['cd', 'pcd', 'fpcd', 'sdcp', 'cs-dcp', 'cg', 'ucd', 'mf-cd']));
    const kinds = new Set(catalog.options.map((o) => `${o.scope}:${o.kind.type}`));
    for (const k of ['shared:int', 'shared:choice', 'lane:int', 'lane:float']) expect(kinds).toContain(k);
  });
});

describe("parseOption (the schema's kinds and ranges)", () => {
  it('refuses a bad value of every option, naming the option by its key and label', () => {
    for (const spec of catalog.options) {
      for (const text of badTexts(spec)) {
        const p = parseOption(spec, text);
        expect(p, `${spec.key} = '${text}'`).toMatchObject({ ok: false, key: spec.key });
        if (!p.ok) {
          expect(p.message).toContain(spec.label);
          expect(p.message).toContain(rangeText(spec));
          expect(p.message).not.toMatch(/usize|u64|f64|expected/);
        }
      }
    }
  });

  it("reads every option's default and its range's ends", () => {
    for (const spec of catalog.options) {
      expect(parseOption(spec, formatValue(defaultValue(spec))), spec.key).toEqual({ ok: true, value: defaultValue(spec) });
      const k = spec.kind;
      if (k.type === 'int') {
        expect(parseOption(spec, ` ${k.min} `)).toEqual({ ok: true, value: k.min });
        expect(parseOption(spec, String(k.max))).toEqual({ ok: true, value: k.max });
      } else if (k.type === 'float') {
        expect(parseOption(spec, String(k.min))).toEqual({ ok: true, value: k.min });
        if (!k.max_open) expect(parseOption(spec, String(k.max))).toEqual({ ok: true, value: k.max });
      } else {
        for (const c of k.choices) expect(parseOption(spec, c)).toEqual({ ok: true, value: c });
      }
    }
  });

  it('reads exponents and whole numbers written as such, never −0', () => {
    const lr = catalog.options.find((o) => o.key === 'lr')!;
    const k = catalog.options.find((o) => o.key === 'k')!;
    expect(parseOption(lr, '1e-3')).toEqual({ ok: true, value: 0.001 });
    expect(parseOption(k, '1e3')).toEqual({ ok: true, value: 1000 });
    const zero = parseOption(lr, '-0');
    expect(zero.ok && Object.is(zero.value, 0)).toBe(true);
  });

  it('reads empty text as "the core derives it" only where the default is derived', () => {
    for (const spec of catalog.options) {
      const p = parseOption(spec, '  ');
      if (spec.default.type === 'derived') expect(p).toEqual({ ok: true, value: null });
      else expect(p).toMatchObject({ ok: false, message: expect.stringContaining('needs a value') });
    }
  });

  it('says ranges as the core does', () => {
    const momentum = catalog.options.find((o) => o.key === 'momentum')!;
    expect(rangeText(momentum)).toBe('a number from 0 up to (not including) 1');
    expect(isValid(momentum, 1)).toBe(false);
    expect(isValid(momentum, 0.99)).toBe(true);
    const lr = catalog.options.find((o) => o.key === 'lr')!;
    expect(rangeText(lr)).toMatch(/^a number from 0 to [\d.]+(e\d+)?$/);
    expect(rangeText(lr).length).toBeLessThan(40);
  });
});

describe('inputs from the schema', () => {
  it('gives every option of every algorithm an input: shared in the settings, per lane on its lanes', () => {
    const shared = sharedOptions(catalog).map((o) => o.key);
    for (const algo of catalog.algorithms) {
      const inputs = new Set([...shared, ...laneOptionKeys(catalog, algo.name)]);
      for (const key of algo.options) expect(inputs, `${algo.name}.${key}`).toContain(key);
      for (const o of catalog.options.filter((x) => x.general)) expect(inputs, `${algo.name}.${o.key}`).toContain(o.key);
      // … and no option it does not read.
      for (const key of laneOptionKeys(catalog, algo.name)) expect(catalog.options.find((o) => o.key === key)!.algos).toContain(algo.name);
    }
  });

  it('shows the learning rate and the algorithm\'s own options first, the other general ones under "more options"', () => {
    const { main, more } = laneOptions(catalog, 'fpcd');
    expect(main.map((o) => o.key)).toEqual(['lr', 'k', 'chains', 'fast_lr', 'fast_decay']);
    expect(more.every((o) => o.advanced)).toBe(true);
    expect(more.map((o) => o.key)).toEqual(expect.arrayContaining(['batch', 'momentum', 'weight_decay', 'lr_decay_iters']));
    expect(laneOptions(catalog, 'mf-cd').main.map((o) => o.key)).toEqual(['lr']);
  });
});
