// Guided tours, DOM-free. A tour is one JSON file in www/tours/ (its name is the tour's id);
// a new tour is a new file, no code. Each step may
//   - `preset` (+ `rate`): set the page up as a paper's experiment (as the picker does);
//   - `state`: change the page's state, written as in the page's link ("axis=sweeps&stop=3000",
//     "lane=cd:lr=0.01"): its keys replace the page's (its `lane=` entries replace every lane);
//   - `run`: "start", "pause" or "reset";
//   - `highlight`: a part of the page to point at (a `data-part` name, classroom.ts), in lane
//     `lane` (its position) when given;
//   - `watch`: an update number the step waits for (training runs; Next stays available): the
//     lane `lane` reaching it when the step names one, else every lane (the slowest);
//   - `text`: what to notice (required).
// A state that is already the page's is not loaded again (the lanes keep training); only the
// axis changing keeps them too.

import type { Catalog } from '../generated/core';
import type { Axis } from './chartData';
import { presetPlan } from './presets';
import type { PageState } from './state';
import { decodeState, encodeState } from './urlState';

/** Elements a step may point at besides the parts a link can hide (classroom.ts). */
export const TOUR_TARGETS = ['chart', 'lanes', 'chart-section'];

export interface TourStep {
  text: string;
  preset?: string;
  rate?: number;
  state?: string;
  run?: 'start' | 'pause' | 'reset';
  highlight?: string;
  lane?: number;
  watch?: number;
}

export interface Tour {
  id: string;
  title: string;
  /** One line: what the tour shows (the picker's description). */
  summary: string;
  steps: TourStep[];
}

/** What a step does to the page. */
export interface StepPlan {
  /** The state to load (null: the page's stays). */
  load: PageState | null;
  /** Only the axis changes (the lanes keep their curves). */
  axis: Axis | null;
  run: TourStep['run'] | null;
}

/** The update a step's watch has reached: lane `lane`'s (by position) when the step names one,
 * else the slowest lane's — a step that talks about the lanes waits for all of them, never only
 * the fastest (issue 27: the UCD tour said ✓ while UCD was at update 306). */
export function watchedIter(step: Pick<TourStep, 'lane'>, lanes: readonly { iter: number }[]): number {
  if (step.lane !== undefined) return lanes[step.lane]?.iter ?? 0;
  return lanes.length ? Math.min(...lanes.map((l) => l.iter)) : 0;
}

/** The watch line of a step (empty without a watch); `who` names the watched lane(s). */
export function watchText(step: TourStep, lanes: readonly { iter: number }[], who: string): string {
  if (!step.watch) return '';
  const iter = watchedIter(step, lanes);
  const n = step.watch.toLocaleString('en');
  const Who = who.charAt(0).toUpperCase() + who.slice(1);
  return iter >= step.watch
    ? `✓ ${Who} ${step.lane === undefined ? 'have' : 'has'} passed update ${n}.`
    : `Watching until ${who} ${step.lane === undefined ? 'reach' : 'reaches'} update ${n}: now at ${iter.toLocaleString('en')}.`;
}

/** The link's parts: [key, raw value] in order. */
function linkParts(hash: string): [string, string][] {
  return hash
    .replace(/^#/, '')
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const eq = p.indexOf('=');
      return eq < 0 ? [p, ''] : [p.slice(0, eq), p.slice(eq + 1)];
    });
}

/** `base`'s link with `change`'s keys replacing its own (all `lane=` entries at once). */
export function mergeLink(base: string, change: string): string {
  const over = linkParts(change);
  const keys = new Set(over.map(([k]) => (k === 'lanes' ? 'lane' : k)));
  const kept = linkParts(base).filter(([k]) => !keys.has(k === 'lanes' ? 'lane' : k));
  return [...kept, ...over].map(([k, v]) => `${k}=${v}`).join('&');
}

/** What step `step` does to a page in `current`; `notices` are the step's unusable values. */
export function planStep(catalog: Catalog, current: PageState, step: TourStep): { plan: StepPlan; notices: string[] } {
  let next = current;
  const notices: string[] = [];
  if (step.preset !== undefined) {
    const p = catalog.presets.find((x) => x.name === step.preset);
    if (!p) notices.push(`no paper experiment '${step.preset}'`);
    else if (current.preset !== p.name || current.rate !== (step.rate ?? 0)) next = presetPlan(p, catalog, step.rate ?? 0, current.shared.seed ?? null).state;
  }
  if (step.state !== undefined) {
    const d = decodeState(catalog, mergeLink(encodeState(catalog, next), step.state));
    notices.push(...d.notices);
    next = d.state;
  }
  const same = encodeState(catalog, next) === encodeState(catalog, current);
  const axisOnly = !same && encodeState(catalog, { ...next, axis: current.axis }) === encodeState(catalog, current);
  return {
    plan: { load: same || axisOnly ? null : next, axis: axisOnly ? next.axis : null, run: step.run ?? null },
    notices,
  };
}

/** A tour file read and checked: the tour, or what is wrong with it (one line per problem).
 * `parts`: the part names a step may highlight. */
export function readTour(id: string, json: unknown, catalog: Catalog, parts: ReadonlySet<string>): { tour: Tour | null; problems: string[] } {
  const problems: string[] = [];
  const t = json as Partial<Tour> | null;
  if (!t || typeof t !== 'object') return { tour: null, problems: [`${id}: not a JSON object`] };
  if (typeof t.title !== 'string' || !t.title) problems.push(`${id}: no title`);
  if (typeof t.summary !== 'string') problems.push(`${id}: no summary`);
  if (!Array.isArray(t.steps) || t.steps.length === 0) return { tour: null, problems: [...problems, `${id}: no steps`] };
  let state = decodeState(catalog, '').state;
  t.steps.forEach((s, i) => {
    const at = `${id}, step ${i + 1}`;
    if (typeof s?.text !== 'string' || !s.text.trim()) problems.push(`${at}: no text`);
    if (s.run !== undefined && !['start', 'pause', 'reset'].includes(s.run)) problems.push(`${at}: run is start, pause or reset`);
    if (s.highlight !== undefined && !parts.has(s.highlight)) problems.push(`${at}: no part '${s.highlight}' to highlight`);
    if (s.watch !== undefined && !(Number.isInteger(s.watch) && s.watch > 0)) problems.push(`${at}: watch is an update number`);
    const { plan, notices } = planStep(catalog, state, s);
    for (const n of notices) problems.push(`${at}: ${n}`);
    if (s.lane !== undefined && !(Number.isInteger(s.lane) && s.lane >= 0 && s.lane < (plan.load ?? state).lanes.length))
      problems.push(`${at}: there is no lane ${s.lane}`);
    state = plan.load ?? (plan.axis ? { ...state, axis: plan.axis } : state);
  });
  return problems.length ? { tour: null, problems } : { tour: { id, title: t.title as string, summary: t.summary as string, steps: t.steps }, problems };
}

/** The tours of the files `modules` (path → parsed JSON), by file name, and their problems. */
export function readTours(modules: Record<string, unknown>, catalog: Catalog, parts: ReadonlySet<string>): { tours: Tour[]; problems: string[] } {
  const tours: Tour[] = [];
  const problems: string[] = [];
  for (const [path, json] of Object.entries(modules).sort(([a], [b]) => a.localeCompare(b))) {
    const id = path.replace(/^.*\//, '').replace(/\.json$/, '');
    const r = readTour(id, json, catalog, parts);
    if (r.tour) tours.push(r.tour);
    problems.push(...r.problems);
  }
  return { tours, problems };
}
