import { describe, expect, it } from 'vitest';
import { embedHidden, hiddenCss, hiddenParts, iframeSnippet, NO_VIEW, pageBase, parseHide, parts } from '../src/app/classroom';
import { GLOSSARY, TERM_OF_KEY } from '../src/app/glossary';
import { introText } from '../src/app/intro';
import { gridLine, parsePatterns, patternsEntry, patternsText, textDataUrl } from '../src/app/patterns';
import { presetPlan } from '../src/app/presets';
import { shareLinks } from '../src/app/share';
import { dataFamily, firstScreen } from '../src/app/state';
import { decodeState, decodeView, encodeState } from '../src/app/urlState';
import { laneOptionKeys, sharedOptions } from '../src/protocol/schema';
import { PANELS } from '../src/views/panels';
import { catalog } from './fixture';

const all = parts(catalog, PANELS);
const known = new Set(all.map((p) => p.key));

describe('the parts a classroom link can hide', () => {
  it('are derived from the schema, the panels and the page, each once, with CSS-safe names', () => {
    const keys = all.map((p) => p.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const o of catalog.options) expect(keys, o.key).toContain(o.key);
    for (const p of PANELS.filter((p) => p.name !== 'options')) expect(keys).toContain(p.name === 'chains' ? 'chains-view' : p.name);
    for (const k of ['run', 'reset', 'preset', 'data', 'stop', 'add', 'remove', 'axis', 'intro', 'share', 'about', 'samplers']) expect(keys).toContain(k);
    for (const k of keys) expect(k).toMatch(/^[a-z0-9][a-z0-9_-]*$/);
    // The options panel is hidden through its rows (the lane options), not listed itself.
    expect(keys).not.toContain('options');
    expect(all.find((p) => p.key === 'lr')?.group).toBe('lane options');
    expect(all.find((p) => p.key === 'seed')?.group).toBe('settings');
  });

  it('hides each part by one attribute selector, and an emptied container with it', () => {
    const css = hiddenCss(new Set(['lr', 'seed']), catalog);
    expect(css).toContain('[data-part~="lr"]');
    expect(css).toContain('[data-part~="seed"]');
    expect(css).not.toContain('#settings');
    expect(hiddenCss(new Set(), catalog)).toBe('');
    // Every setting hidden: the settings area goes too; every lane option: the options panels.
    const settings = ['data', 'stop', ...sharedOptions(catalog).map((o) => o.key)];
    expect(hiddenCss(new Set(settings), catalog)).toContain('#settings');
    const cdKeys = laneOptionKeys(catalog, 'cd');
    const cd = hiddenCss(new Set(cdKeys), catalog);
    expect(cd).toContain('.lane[data-algo="cd"] .panel-options');
    expect(cd).not.toContain('.lane[data-algo="fpcd"] .panel-options'); // FPCD reads options CD does not
    const onlyStart = hiddenCss(new Set(all.map((p) => p.key).filter((k) => k !== 'run')), catalog);
    expect(onlyStart).not.toContain('#controls');
    expect(hiddenCss(new Set(all.map((p) => p.key)), catalog)).toContain('#controls');
    // A name that is not a part name never reaches the style sheet.
    expect(hiddenCss(new Set(['"] body {x']), catalog)).toBe('');
  });

  it('embed=1 alone keeps Start, Pause, Reset and the views; a hide list replaces its default', () => {
    const embed = hiddenParts({ ...NO_VIEW, embed: true }, catalog, PANELS);
    for (const k of ['run', 'reset', 'filters', 'distribution']) expect(embed.has(k), k).toBe(false);
    for (const k of ['lr', 'seed', 'data', 'preset', 'add', 'remove', 'share', 'ais', 'download', 'slowmo', 'chain-time', 'grad-error', 'mixing'])
      expect(embed.has(k), k).toBe(true);
    expect(embed.has('tau-histogram')).toBe(false);
    expect([...embed]).toEqual(embedHidden(catalog, PANELS));
    expect([...hiddenParts({ hide: ['seed'], embed: true, tour: null }, catalog, PANELS)]).toEqual(['seed']);
    expect(hiddenParts(NO_VIEW, catalog, PANELS).size).toBe(0);
  });

  it('reads a hide list, naming what it does not know', () => {
    expect(parseHide('lr, seed,,lr,zzz', known)).toEqual({ hide: ['lr', 'seed'], unknown: ['zzz'] });
  });
});

describe('the view flags in the URL', () => {
  const first = firstScreen(catalog);
  const decode = (hash: string) => decodeView(hash, known, ['ucd-bas4']);

  it('round trip, after the experiment, without disturbing it', () => {
    const view = { hide: ['run', 'lr', 'filters'], embed: true, tour: 'ucd-bas4' };
    const hash = encodeState(catalog, first, view);
    expect(hash).toBe(`${encodeState(catalog, first)}&hide=run,lr,filters&embed=1&tour=ucd-bas4`);
    expect(decode(hash)).toEqual({ view, notices: [] });
    expect(decodeState(catalog, hash)).toEqual({ state: first, notices: [] });
    expect(encodeState(catalog, first, NO_VIEW)).toBe(encodeState(catalog, first));
    expect(decode(encodeState(catalog, first))).toEqual({ view: NO_VIEW, notices: [] });
    // An empty list is a list: nothing hidden, even in an embed.
    expect(decode('#embed=1&hide=').view).toEqual({ hide: [], embed: true, tour: null });
  });

  it("reads TF Playground's KEY_hide=true too", () => {
    const { view, notices } = decode('#lr_hide=true&seed_hide=1&k_hide=false&data=bas3');
    expect(view.hide).toEqual(['lr', 'seed']);
    expect(notices).toEqual([]);
    expect(decodeState(catalog, '#lr_hide=true&data=bas3')).toEqual({ state: { ...first, data: 'bas3' }, notices: [] });
  });

  it('ignores unknown parts, tours and values with a notice each', () => {
    const { view, notices } = decode('#hide=lr,nope&embed=maybe&tour=none&zz_hide=true&lr_hide=perhaps');
    expect(view).toEqual({ hide: ['lr'], embed: false, tour: null });
    expect(notices).toHaveLength(5);
    expect(notices[0]).toMatch(/hide='nope'/);
  });
});

describe('the Share dialog', () => {
  const state = presetPlan(catalog.presets.find((p) => p.name === 'ucd-bas4')!, catalog, 0, 1).state;

  it('makes a link that opens the same experiment with the parts hidden, and an iframe of its compact form', () => {
    const links = shareLinks(catalog, state, { hide: ['seed', 'lr'], embed: false, tour: null }, 'https://course.example/rbm/index.html#old=1', 'RBM "demo"');
    expect(links.link.startsWith('https://course.example/rbm/index.html#data=bas4&')).toBe(true);
    expect(links.link).toMatch(/&hide=seed,lr$/);
    expect(links.embedLink).toMatch(/&hide=seed,lr&embed=1$/);
    const hash = new URL(links.embedLink).hash;
    expect(decodeState(catalog, hash)).toEqual({ state, notices: [] });
    expect(decodeView(hash, known, []).view).toEqual({ hide: ['seed', 'lr'], embed: true, tour: null });
    expect(links.iframe).toBe(
      `<iframe src="${links.embedLink.replace(/&/g, '&amp;')}" width="800" height="500" style="border:0;max-width:100%" title="RBM &quot;demo&quot;" loading="lazy"></iframe>`,
    );
    // Nothing hidden: no hide= in the full link, an explicit empty one in the embed's.
    const plain = shareLinks(catalog, state, { hide: [], embed: false, tour: 'ucd-bas4' }, 'file:///x/rbm-playground.html', 't');
    expect(plain.link).not.toContain('hide=');
    expect(plain.link).toMatch(/&tour=ucd-bas4$/);
    expect(plain.embedLink).toMatch(/&hide=&embed=1&tour=ucd-bas4$/);
  });

  it('escapes the snippet', () => {
    expect(iframeSnippet('a"><script>', '<b>')).toBe(
      '<iframe src="a&quot;&gt;&lt;script&gt;" width="800" height="500" style="border:0;max-width:100%" title="&lt;b&gt;" loading="lazy"></iframe>',
    );
    expect(pageBase('http://h/p/#x=1')).toBe('http://h/p/');
    expect(pageBase('http://h/p/')).toBe('http://h/p/');
  });
});

describe('explanations', () => {
  it('the first screen says in two sentences what happens and what to look for', () => {
    const text = introText(catalog, firstScreen(catalog));
    expect(text).toMatch(/^Press Start: CD-1 and PCD/);
    expect(text.split(/(?<=[.)])\s+(?=[A-Z])/)).toHaveLength(2);
    expect(text).toMatch(/The UCD paper reports that CD-1’s log-likelihood rises, then falls back.*watch whether it does here\.$/);
  });

  it("a paper's experiment says what the paper found; other set-ups say what to compare", () => {
    const ucd = catalog.presets.find((p) => p.name === 'ucd-bas4')!;
    expect(introText(catalog, presetPlan(ucd, catalog, 0, 1).state)).toMatch(
      /^Press Start: CD-1, PCD-1 and UCD race on Bars & Stripes 4x4.*\. The paper reports that CD-1 and PCD-1 rise, then diverge [^.]*\.$/,
    );
    expect(introText(catalog, { ...firstScreen(catalog), data: 'bas3' })).toMatch(/^Press Start: CD-k and PCD-k train .*Bars & Stripes 3x3/);
    expect(introText(catalog, { ...firstScreen(catalog), lanes: [] })).toMatch(/no lane/);
  });

  it('every term an option or statistic points to is in the glossary, once', () => {
    const ids = GLOSSARY.map((t) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [key, id] of Object.entries(TERM_OF_KEY)) expect(ids, key).toContain(id);
    for (const id of ['atll', 'bound', 'kl', 'gibbs-sweep', 'tau']) expect(ids).toContain(id);
  });
});

describe("the students' own patterns", () => {
  it('are read with the core’s rules, with the line of the first problem', () => {
    expect(parsePatterns('# bars\n1100\n 0011 \n\n1 1 0 0\n')).toEqual({ ok: true, rows: ['1100', '0011', '1100'], m: 4 });
    expect(parsePatterns('110\n12a')).toEqual({ ok: false, message: "line 2: unexpected character '2' (patterns are 0/1 strings)" });
    expect(parsePatterns('110\n1101')).toEqual({ ok: false, message: 'line 2: pattern has 4 units, earlier ones have 3' });
    expect(parsePatterns(' \n# nothing\n').ok).toBe(false);
  });

  it('make a small set: distinct patterns with their counts, the bound, a square shape', () => {
    const e = patternsEntry('mine', ['1100', '0011', '1100', '1111']);
    expect(e.patterns).toEqual([
      [1, 1, 0, 0],
      [0, 0, 1, 1],
      [1, 1, 1, 1],
    ]);
    expect(e.counts).toEqual([2, 1, 1]);
    expect(e.bound).toBeCloseTo(0.5 * Math.log(0.5) + 2 * 0.25 * Math.log(0.25), 12);
    expect(e.shape).toEqual([2, 2]);
    expect([e.rows, e.m, e.asset]).toEqual([4, 4, null]);
    expect(dataFamily(e)).toBe('small');
    expect(patternsEntry('x', ['101']).shape).toBeNull();
    expect(atob(textDataUrl(patternsText(['01', '10'])).split(',')[1])).toBe('01\n10\n');
    expect(gridLine([true, false, false, true])).toBe('1001');
  });
});
