import { describe, expect, it } from 'vitest';
import { parts } from '../src/app/classroom';
import { presetPlan } from '../src/app/presets';
import { firstScreen } from '../src/app/state';
import { mergeLink, planStep, readTour, readTours, TOUR_TARGETS } from '../src/app/tour';
import { encodeState } from '../src/app/urlState';
import { PANELS } from '../src/views/panels';
import { catalog } from './fixture';

const targets = new Set([...parts(catalog, PANELS).map((p) => p.key), ...TOUR_TARGETS]);
const files = import.meta.glob('../tours/*.json', { eager: true, import: 'default' });

describe('the tour files', () => {
  it('every file in www/tours is a tour without a problem (the page leaves out one with a problem)', () => {
    expect(Object.keys(files).length).toBeGreaterThan(0);
    const { tours, problems } = readTours(files, catalog, targets);
    expect(problems).toEqual([]);
    expect(tours.map((t) => t.id)).toContain('ucd-bas4');
  });

  it("the UCD tour sets up the paper's experiment, starts it, points at its parts and ends paused", () => {
    const ucd = readTours(files, catalog, targets).tours.find((t) => t.id === 'ucd-bas4')!;
    expect(ucd.steps[0].preset).toBe('ucd-bas4');
    expect(ucd.steps.some((s) => s.run === 'start')).toBe(true);
    expect(ucd.steps.at(-1)?.run).toBe('pause');
    for (const s of ucd.steps) expect(s.highlight).toBeDefined();
  });
});

describe('a tour step', () => {
  const first = firstScreen(catalog);
  const ucd = presetPlan(catalog.presets.find((p) => p.name === 'ucd-bas4')!, catalog, 0, 1).state;

  it("replaces the page's link keys with its own (lane= entries all at once)", () => {
    expect(mergeLink('data=bas4&axis=iter&lane=cd&lane=pcd', 'axis=sweeps')).toBe('data=bas4&lane=cd&lane=pcd&axis=sweeps');
    expect(mergeLink('data=bas4&lane=cd&lane=pcd', 'lane=ucd')).toBe('data=bas4&lane=ucd');
    expect(mergeLink('data=bas4&lane=cd', 'lanes=0')).toBe('data=bas4&lanes=0');
  });

  it('loads a new state only when it differs, and changes only the axis when only the axis differs', () => {
    const preset = planStep(catalog, first, { text: 't', preset: 'ucd-bas4' });
    expect(preset.plan.load).toEqual(ucd);
    expect(planStep(catalog, ucd, { text: 't', preset: 'ucd-bas4' }).plan).toEqual({ load: null, axis: null, run: null });
    expect(planStep(catalog, ucd, { text: 't', state: 'axis=iter', run: 'start' }).plan).toEqual({ load: null, axis: 'iter', run: 'start' });
    const lr = planStep(catalog, first, { text: 't', state: 'lane=cd:lr=0.01' }).plan.load!;
    expect(lr.lanes.map((l) => [l.algo, l.options.lr])).toEqual([['cd', 0.01]]);
    expect(encodeState(catalog, { ...lr, lanes: first.lanes })).toBe(encodeState(catalog, first));
  });

  it('a tour with a problem says what and where', () => {
    const { tour, problems } = readTour(
      'bad',
      {
        title: 'x',
        summary: 'y',
        steps: [{ text: '' }, { text: 'a', preset: 'nope', highlight: 'nowhere', run: 'jump', watch: -1, lane: 9 }, { text: 'b', state: 'hidden=abc' }],
      },
      catalog,
      targets,
    );
    expect(tour).toBeNull();
    expect(problems).toEqual([
      'bad, step 1: no text',
      'bad, step 2: run is start, pause or reset',
      "bad, step 2: no part 'nowhere' to highlight",
      'bad, step 2: watch is an update number',
      "bad, step 2: no paper experiment 'nope'",
      'bad, step 2: there is no lane 9',
      expect.stringMatching(/^bad, step 3: .*hidden units must be a whole number/),
    ]);
    expect(readTour('e', { title: 't', summary: 's', steps: [] }, catalog, targets).problems).toEqual(['e: no steps']);
  });
});
