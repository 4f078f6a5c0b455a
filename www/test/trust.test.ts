// Issue 27. Trust: every static text about a paper's result is the paper's word ("the paper
// reports …"), never the page's; what this run or study shows is written from its measurements
// (runFindings) and tours wait for the lane they talk about. Classroom links: Trials in the
// Share dialog, the "Only …" sets give one live run, an edit asks before it discards a study
// under way, a preset's name alone sets the whole preset up.
import { beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/app/app';
import { parts } from '../src/app/classroom';
import { introText, runFindings, verdictCounts } from '../src/app/intro';
import { presetDescription, presetPlan, rateLabel } from '../src/app/presets';
import { shareLinks } from '../src/app/share';
import { firstScreen } from '../src/app/state';
import { laneStudyLine, Study } from '../src/app/study';
import { type TourStep, watchedIter, watchText } from '../src/app/tour';
import { decodeState, encodeState } from '../src/app/urlState';
import type { Catalog, Verdict } from '../src/generated/core';
import { studyStatus } from '../src/views/laneCard';
import { PANELS } from '../src/views/panels';
import { FakeWorker } from './fakeWorker';
import { catalog, samplers } from './fixture';

const tours = import.meta.glob('../tours/*.json', { eager: true, import: 'default' }) as Record<string, { summary: string; steps: TourStep[] }>;

/** Words of an outcome: what a curve, a lane or a sampler does or ends at. */
const OUTCOME =
  /\b(stuck|stalls?|climbs?|ends? (?:at|near|highest|lowest)|reach(?:es)?|beats?|falls?|diverges?|levels? off|converg\w*|stays?|worst|best|highest|lowest|escapes?|turns? over|peaks?|faster|fastest|sooner|lingers?|keeps? (?:close|converging)|moves? from|shrinks?|better)\b/i;
/** Phrases that name a reference, not an outcome. */
const NEUTRAL = [/higher is better/gi, /the best (?:possible|any model can reach)/gi, /\bits best so far\b/gi];
/** A sentence attributed to the paper, or to our own measurement named with the command that
 * reproduces it (the claims explorer's grids, docs/explorer.md). */
const ATTRIBUTED = /\b(?:the (?:\w+[- ])?paper|the authors)(?:'s)? (?:reports?|finds?|found|shows?)\b|\bin our explorer runs \(rbm explore\b/i;

/** Every name a lane can have in a text: the presets' labels, the algorithms', the samplers'. */
function laneNames(c: Catalog): string[] {
  const names = new Set<string>(['Gibbs', 'PCD', 'UCD', 'CD-1', 'mean-field CD']);
  for (const p of c.presets) for (const l of p.lanes) names.add(l.label);
  for (const a of c.algorithms) if (a.title.length <= 20) names.add(a.title);
  for (const s of samplers) if (s.title.length <= 24) names.add(s.title);
  return [...names];
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NAMES = laneNames(catalog).map((n) => new RegExp(`(?<![\\w-])${escapeRe(n)}(?![\\w-])`));

/** The sentences of a text (a sentence ends at . ! or ? before a space and a capital). */
function sentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+(?=[A-Z“"(])/).filter((s) => s.trim() !== '');
}

/** A sentence without its reference phrases ("higher is better", "the best possible"). */
function outcomes(s: string): string {
  let t = s;
  for (const n of NEUTRAL) t = t.replace(n, '');
  return t;
}

/** The sentences of `text` that state an outcome of a named lane as fact (unattributed). */
function unattributed(text: string): string[] {
  return sentences(text).filter((s) => {
    const t = outcomes(s);
    return NAMES.some((n) => n.test(t)) && OUTCOME.test(t) && !ATTRIBUTED.test(s);
  });
}

/** Every static text the page shows about the papers: preset menu items, rate choices, the box
 * above Start for each preset and the first screen, the preset notes, every tour step. */
function staticTexts(c: Catalog): [string, string][] {
  const out: [string, string][] = [];
  out.push(['first screen', introText(c, firstScreen(c))]);
  for (const p of c.presets) {
    out.push([`${p.name}: expect`, p.expect]);
    out.push([`${p.name}: menu item`, `${p.title} — ${p.paper}`]);
    for (let i = 0; i < p.rates.length; i++) out.push([`${p.name}: rate ${i}`, rateLabel(p, i)]);
    out.push([`${p.name}: box above Start`, introText(c, presetPlan(p, c, 0, 1).state)]);
    out.push([`${p.name}: note`, presetDescription(p, true)]);
    out.push([`${p.name}: note (live)`, presetDescription(p, false)]);
  }
  for (const [path, t] of Object.entries(tours)) {
    out.push([`${path}: summary`, t.summary]);
    for (const [i, s] of t.steps.entries()) out.push([`${path}, step ${i + 1}`, s.text]);
  }
  return out;
}

describe('static texts about the papers (issue 27)', () => {
  it('the check finds an outcome stated as fact, and passes the same outcome attributed to the paper', () => {
    // The texts the issue quotes, as they were: each states a result as the page's own.
    expect(unattributed('CD-12 and PCD-12 get stuck near −3.15 at both rates (CG escapes only at η = 0.5).')).toHaveLength(1);
    expect(unattributed('Both climb for about 2 500 updates, then CD-1 falls back further and further while PCD stays near the bound.')).toHaveLength(1);
    expect(unattributed('PCD-1 levels off near −3.7; UCD keeps close to the top.')).toHaveLength(1);
    expect(unattributed('The paper reports that CD-12 and PCD-12 get stuck near −3.15 at both rates.')).toEqual([]);
    expect(unattributed('The UCD paper reports that CD-1’s log-likelihood falls back.')).toEqual([]);
    expect(unattributed('In our explorer runs (rbm explore, docs/explorer.md) CD-12 and PCD-12 end below the others only for η ≤ 0.02.')).toEqual([]);
    expect(unattributed('In our runs CD-12 and PCD-12 get stuck near −3.15 at both rates.')).toHaveLength(1);
    // A set-up fact is not an outcome.
    expect(unattributed('Every lane spends 12 Gibbs sweeps per update (CD-12, PCD-12, CG-12), so updates are equal compute.')).toEqual([]);
  });

  it('no static text states a claim as the page’s own: every outcome of a lane is “the paper reports …”', () => {
    const bad = staticTexts(catalog).flatMap(([where, text]) => unattributed(text).map((s) => `${where}: ${s}`));
    expect(bad).toEqual([]);
  });

  it("every claim the page's verdicts judge is paraphrased only with attribution (its lanes and its number)", () => {
    const texts = staticTexts(catalog);
    let checked = 0;
    for (const p of catalog.presets) {
      for (const c of p.claims) {
        const names = p.lanes.map((l) => l.label).filter((l) => c.text.includes(l));
        const numbers = c.text.match(/[−-]?\d+(?:\.\d+)?/g)?.filter((n) => !names.some((l) => l.endsWith(n))) ?? [];
        for (const [where, text] of texts) {
          for (const s of sentences(text)) {
            if (!names.length || !names.every((l) => s.includes(l))) continue;
            if (numbers.length && !numbers.some((n) => s.includes(n))) continue;
            if (!OUTCOME.test(outcomes(s))) continue;
            checked++;
            expect(ATTRIBUTED.test(s), `${where} paraphrases the claim “${c.text}” unattributed: ${s}`).toBe(true);
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it("each preset's line of what the paper found begins “The paper reports”, and the box above Start carries it", () => {
    for (const p of catalog.presets) {
      expect(p.expect.startsWith('The paper reports'), p.name).toBe(true);
      expect(introText(catalog, presetPlan(p, catalog, 0, 1).state)).toContain('The paper reports');
    }
  });

  it('the first screen predicts nothing the run may refute', () => {
    const t = introText(catalog, firstScreen(catalog));
    expect(t).not.toMatch(/stays near the bound|2 500 updates/);
    expect(t).toMatch(/paper reports/);
  });
});

describe('what this run shows, from its numbers', () => {
  it('names each lane’s latest value, and where it fell back from its best', () => {
    const lanes = [
      { label: 'CD-1', iter: [0, 100, 200, 300], atll: [-11, -4.5, -3.9, -4.885] },
      { label: 'PCD', iter: [0, 100, 200], atll: [-11, -5, -4.2] },
      { label: 'UCD', iter: [0], atll: [-11] },
    ];
    expect(runFindings(lanes, null)).toBe(
      'This run so far: CD-1 reads −4.885 at update 300, 0.985 below its best (−3.900 at update 200); PCD reads −4.200 at update 200, its best so far.',
    );
    // Rewritten when the numbers change.
    lanes[1].iter.push(300);
    lanes[1].atll.push(-4.5);
    expect(runFindings(lanes, null)).toContain('PCD reads −4.500 at update 300, 0.300 below its best (−4.200 at update 200)');
    expect(runFindings([{ label: 'CD-1', iter: [0], atll: [-11] }], null)).toBe('');
  });

  it("a study's line counts the claims' verdicts", () => {
    const v = (status: Verdict['status'], trials: number): Verdict => ({ claim: 'c', status, detail: '', trials }) as Verdict;
    expect(runFindings([], verdictCounts([v('holds', 25), v('fails', 25), v('holds', 25), v('fails', 25), v('holds', 25)]))).toBe(
      "This study on the medians of 25 trials per lane: 3 of the paper's 5 statements hold, 2 do not (the list under the chart).",
    );
    expect(runFindings([], verdictCounts([v('holds', 3), v('undecided', 0)]))).toBe(
      "This study on the medians of 3 trials per lane: 1 of the paper's 2 statements holds, 0 do not, 1 not decided yet (the list under the chart).",
    );
    expect(runFindings([], verdictCounts([v('undecided', 0)]))).toMatch(/none of the paper's 1 statements is decided/);
  });
});

describe("a tour's watch", () => {
  const lanes = [{ iter: 2600 }, { iter: 2550 }, { iter: 306 }];
  it('waits for the slowest lane, not the fastest, when the step names no lane', () => {
    expect(watchedIter({}, lanes)).toBe(306);
    expect(watchText({ text: 't', watch: 2500 }, lanes, 'all lanes')).toBe('Watching until all lanes reach update 2,500: now at 306.');
    expect(watchText({ text: 't', watch: 300 }, lanes, 'all lanes')).toBe('✓ All lanes have passed update 300.');
  });
  it('waits for the lane the step talks about', () => {
    expect(watchedIter({ lane: 2 }, lanes)).toBe(306);
    expect(watchedIter({ lane: 0 }, lanes)).toBe(2600);
    expect(watchText({ text: 't', watch: 4000, lane: 2 }, lanes, 'UCD')).toBe('Watching until UCD reaches update 4,000: now at 306.');
  });
});

describe('classroom links (issue 27)', () => {
  const ucd = catalog.presets.find((p) => p.name === 'ucd-bas4')!;
  const plan = presetPlan(ucd, catalog, 0, 1).state;

  it('a preset’s name alone sets the whole preset up: its lanes, data, settings, end point and trials', () => {
    const d = decodeState(catalog, '#preset=ucd-bas4');
    expect(d.notices).toEqual([]);
    expect(encodeState(catalog, d.state)).toBe(encodeState(catalog, plan));
    expect(d.state.lanes.map((l) => l.label)).toEqual(['CD-1', 'PCD-1', 'UCD']);
    // At the link's rate, with the link's other values on top; lanes in the link stay the link's.
    const r1 = decodeState(catalog, 'preset=ucd-bas4&rate=1&trials=&seed=5').state;
    expect(r1.lanes.map((l) => l.options.lr)).toEqual([0.01, 0.01, 0.01]);
    expect([r1.trials, r1.shared.seed, r1.stop]).toEqual([null, 5, ucd.iters]);
    expect(decodeState(catalog, 'preset=ucd-bas4&lane=cd').state.lanes.map((l) => l.algo)).toEqual(['cd']);
  });

  it('Trials per lane is a part the Share dialog lists', () => {
    expect(parts(catalog, PANELS).find((p) => p.key === 'trials')).toEqual({ key: 'trials', label: 'Trials per lane', group: 'settings' });
  });

  it('a link without the study gives one live run per lane; with it, the trials', () => {
    const hide = ['trials', 'seed'];
    const live = shareLinks(catalog, plan, { hide, embed: false, tour: null, study: false }, 'https://x.org/p/', 't');
    expect(decodeState(catalog, live.link.split('#')[1]).state.trials).toBeNull();
    expect(live.link).not.toMatch(/trials=\d/);
    const study = shareLinks(catalog, plan, { hide, embed: false, tour: null, study: true }, 'https://x.org/p/', 't');
    expect(decodeState(catalog, study.link.split('#')[1]).state.trials).toBe(25);
  });
});

describe('an edit asks before it discards a study under way (issue 27)', () => {
  let workers: FakeWorker[];
  let app: App;
  let questions: string[];
  let answer: boolean;
  beforeEach(() => {
    workers = [];
    questions = [];
    answer = false;
    app = new App(
      catalog,
      (name) => {
        const w = new FakeWorker(name);
        workers.push(w);
        return w;
      },
      { changed: () => undefined, download: () => undefined },
      {
        trialWorkers: 1,
        confirm: (q) => {
          questions.push(q);
          return answer;
        },
      },
    );
    app.load(presetPlan(catalog.presets.find((p) => p.name === 'ucd-bas4')!, catalog, 0, 1).state);
  });
  const trialWorker = () => workers.filter((w) => w.name.startsWith('trials')).at(-1)!;
  const point = (iter: number) => ({ iter, sweeps: iter, atll: -5, stats: {}, ms: iter });

  it('nothing to ask before a trial has a record past update 0', () => {
    app.start();
    expect(app.setLaneOption(app.lanes[0], 'lr', '0.02')).toBe(true);
    expect(questions).toEqual([]);
    expect(app.study).toBeNull();
  });

  it('declined, the study and the settings stay; accepted, the edit applies and the study is dropped', () => {
    app.start();
    const msg = trialWorker().last('trial')!;
    trialWorker().reply({ type: 'trialPoints', id: msg.id, points: [point(0), point(100), point(200)] });
    const study = app.study;
    expect(study).not.toBeNull();
    // η (a live option: it used to drop the study without a word), the end point, trials, a lane, the preset.
    expect(app.setLaneOption(app.lanes[0], 'lr', '0.02')).toBe(false);
    expect(questions[0]).toMatch(/^Changing learning rate η discards the study under way \(0 of 75 trials done, 1 running, 0%\)/);
    expect(app.setStop('500')).toBe(false);
    expect(app.setTrials('3')).toBe(false);
    app.removeLane(app.lanes[2]);
    app.applyRate(1);
    app.applyPreset(null);
    expect(app.addLane('cd')).toBeNull();
    expect(questions).toHaveLength(7);
    expect(app.study).toBe(study);
    expect([app.lanes.length, app.lanes[0].options.lr, app.stop, app.trials, app.rate, app.preset]).toEqual([3, 0.1, 10000, 25, 0, 'ucd-bas4']);
    answer = true;
    expect(app.setLaneOption(app.lanes[0], 'lr', '0.02')).toBe(true);
    expect(app.study).toBeNull();
    expect(app.lanes[0].options.lr).toBe(0.02);
  });
});

describe('a study’s progress (issue 27)', () => {
  const pt = (iter: number, ms: number) => ({ iter, sweeps: iter, atll: -5, stats: {}, ms });
  const plan = { lanes: [0, 1].map((id) => ({ id, label: `L${id}`, claimLabel: null, stats: [] })), runs: 1, until: 20, every: 5, seed: 1 };

  it('never says less done than before, when a lane’s measured cost changes the weights', () => {
    const s = new Study(plan);
    const a = s.next()!;
    s.add(
      a,
      [0, 5, 10, 15, 20].map((i) => pt(i, i)),
      20,
    ); // 1 ms per update, done
    s.finish(a, 20);
    const before = s.progress(2).fraction;
    expect(before).toBeCloseTo(0.5, 12);
    const b = s.next()!;
    s.add(b, [pt(0, 0), pt(5, 500)], 500); // 100 ms per update: by cost, far less is done
    expect(s.progress(2).fraction).toBe(before);
    // The time left: no less than the longest trial left (lane 1's, 1 500 ms), whatever the workers.
    expect(s.progress(2).etaMs).toBe(1500);
    expect(s.progress(16).etaMs).toBe(1500);
  });

  it('a study lane’s status says where its trials are, never "ready · update 0"', () => {
    expect(studyStatus('running')).toEqual(['in the study: trials running', 'panels: its starting model (update 0)']);
    expect(studyStatus(null)[0]).toBe('a study lane: its trials run on Start');
    for (const s of ['ready', 'running', 'paused', 'done', null] as const) expect(studyStatus(s).join(' · ')).not.toMatch(/^ready/);
  });

  it('a lane’s line on its card names its trials under way and their updates (not "update 0")', () => {
    const s = new Study({ ...plan, runs: 2 });
    const a = s.next()!;
    s.add(a, [pt(0, 0), pt(5, 5), pt(10, 10)], 10);
    expect(laneStudyLine(s, 0)).toMatch(/^trials: 0 of 2 done · 1 running \(trial 1 at update 10\)/);
  });
});
