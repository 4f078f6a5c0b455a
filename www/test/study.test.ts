import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bandAt,
  csvField,
  curveCsv,
  deviceNote,
  devicesText,
  formatDuration,
  lossText,
  progressText,
  quantile,
  Study,
  schedule,
  studyCsv,
  studyJson,
  type Trial,
  type TrialPoint,
} from '../src/app/study';
import type { StatSpec } from '../src/generated/core';

const point = (iter: number, atll: number, stats: Record<string, number> = {}, ms = iter): TrialPoint => ({ iter, sweeps: 2 * iter, atll, stats, ms });
const trial = (points: TrialPoint[], state: Trial['state'] = 'done', diverged = false): Trial => ({
  lane: 0,
  index: 0,
  state,
  points,
  diverged,
  message: null,
  ms: 0,
});
const TAU: StatSpec[] = [
  { key: 'mean_tau', label: 'mean τ', unit: 'steps', help: '', over_updates: 'mean', over_trials: 'mean' },
  { key: 'max_tau', label: 'max τ', unit: 'steps', help: '', over_updates: 'max', over_trials: 'max' },
];

describe('quantile (the core’s type 7)', () => {
  it('interpolates between order statistics, as the core does', () => {
    const xs = [1, 2, 3, 4, 5];
    expect(quantile(xs, 0.5)).toBe(3);
    expect(quantile(xs, 0)).toBe(1);
    expect(quantile(xs, 1)).toBe(5);
    expect(Math.abs(quantile(xs, 0.1) - 1.4)).toBeLessThan(1e-12);
    expect(quantile([0, 10], 0.975)).toBe(9.75);
    expect(quantile([], 0.5)).toBeNaN();
    expect(quantile([-Infinity, -Infinity, -3, -2.5, -2, -1], 0.025)).toBe(-Infinity);
  });
  it('is ordered in p for any values', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, min: -50, max: 0 }), { minLength: 1, maxLength: 40 }), (v) => {
        const s = [...v].sort((a, b) => a - b);
        const q = [0.025, 0.1, 0.5, 0.9, 0.975].map((p) => quantile(s, p));
        for (let i = 1; i < q.length; i++) expect(q[i]).toBeGreaterThanOrEqual(q[i - 1]);
      }),
    );
  });
});

describe('schedule', () => {
  it('ends at the last update', () => {
    expect(schedule(10, 5)).toEqual([0, 5, 10]);
    expect(schedule(12, 5)).toEqual([0, 5, 10, 12]);
    expect(schedule(0, 5)).toEqual([0]);
  });
});

describe('bandAt', () => {
  it('counts a finished trial that diverged as −∞ and combines statistics as declared', () => {
    const trials = [
      trial([point(0, -5), point(10, -3, { mean_tau: 2, max_tau: 4 }), point(20, -2.5, { mean_tau: 3, max_tau: 6 })]),
      trial([point(0, -5), point(10, -4, { mean_tau: 4, max_tau: 8 })], 'done', true),
      trial([point(0, -5), point(10, -3.5, { mean_tau: 6, max_tau: 12 }), point(20, -3, { mean_tau: 1, max_tau: 2 })]),
    ];
    const b10 = bandAt(trials, 1, 10, TAU)!;
    expect(b10.median).toBe(-3.5);
    expect(b10.stats).toEqual({ max_tau: 12, mean_tau: 4 });
    expect(b10.sweeps).toBe(20);
    expect(b10.mean).toBeCloseTo(-3.5, 12);
    const b20 = bandAt(trials, 2, 20, TAU)!;
    expect([b20.diverged, b20.trials, b20.median, b20.q025, b20.mean]).toEqual([1, 3, -3, -Infinity, -Infinity]);
  });
  it('leaves out running trials that have not reached the checkpoint; none: null', () => {
    const running = trial([point(0, -5)], 'running');
    expect(bandAt([running], 1, 10, [])).toBeNull();
    const b = bandAt([trial([point(0, -5), point(10, -2)]), running], 1, 10, [])!;
    expect([b.trials, b.median, b.diverged]).toEqual([1, -2, 0]);
  });
});

const plan = (runs = 3, lanes = 2) => ({
  lanes: Array.from({ length: lanes }, (_, i) => ({ id: i, label: `L${i}`, claimLabel: `C${i}`, stats: [] })),
  runs,
  until: 20,
  every: 10,
  seed: 1,
});

describe('Study', () => {
  it('hands trials out trial-major, the lanes interleaved, so every band grows together', () => {
    const s = new Study(plan(2, 3));
    const order: [number, number][] = [];
    for (let t = s.next(); t; t = s.next()) order.push([t.lane, t.index]);
    expect(order).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
      [0, 1],
      [1, 1],
      [2, 1],
    ]);
  });
  it('starts each round with the lane that costs most per update, so the last trials are the cheapest', () => {
    const s = new Study(plan(3, 3));
    const msPerUpdate = [1, 9, 3];
    const order: [number, number][] = [];
    for (let t = s.next(); t; t = s.next()) {
      order.push([t.lane, t.index]);
      const ms = msPerUpdate[t.lane] * 20;
      s.add(t, [point(0, -5, {}, 0), point(10, -4, {}, ms / 2), point(20, -3, {}, ms)], ms);
      s.finish(t, ms);
    }
    // Round 0 in plan order (nothing measured yet), then lane 1 (9 ms), lane 2 (3 ms), lane 0.
    expect(order).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
      [1, 1],
      [2, 1],
      [0, 1],
      [1, 2],
      [2, 2],
      [0, 2],
    ]);
  });
  it('hands an unmeasured lane out before measured ones in a round, and a requeued trial before later rounds', () => {
    const s = new Study(plan(2, 2));
    const a = s.next()!; // lane 0, measured below
    s.add(a, [point(0, -5, {}, 0), point(10, -4, {}, 50)], 50);
    const b = s.next()!; // lane 1, still unmeasured
    expect([b.lane, b.index]).toEqual([1, 0]);
    s.finish(a, 100);
    s.requeue(b);
    expect(s.next()).toBe(b);
    const c = s.next()!;
    expect([c.lane, c.index]).toEqual([1, 1]);
  });
  it('takes each checkpoint once, ends trials (diverged when short), requeues a stopped trial first', () => {
    const s = new Study(plan(2, 1));
    const a = s.next()!;
    s.add(a, [point(0, -5), point(10, -4), point(10, -9), point(7, -1)], 10);
    expect(a.points.map((p) => p.iter)).toEqual([0, 10]);
    s.finish(a, 12);
    expect([a.state, a.diverged]).toEqual(['done', true]);
    const b = s.next()!;
    s.add(b, [point(0, -5)], 1);
    s.requeue(b);
    expect([b.state, b.points]).toEqual(['queued', []]);
    expect(s.next()).toBe(b);
    s.finish(b, 0, 'the core refused');
    expect([b.state, b.message]).toEqual(['failed', 'the core refused']);
    expect(s.finished()).toBe(true);
  });
  it('says how far it is and how long it will take, from each lane’s measured cost', () => {
    const s = new Study(plan(2, 2));
    expect(s.progress(1).etaMs).toBeNull();
    const a = s.next()!; // lane 0: 1 ms per update
    s.add(a, [point(0, -5, {}, 0), point(10, -4, {}, 10), point(20, -3, {}, 20)], 20);
    s.finish(a, 20);
    const b = s.next()!; // lane 1: 10 ms per update, half way
    s.add(b, [point(0, -5, {}, 0), point(10, -4, {}, 100)], 100);
    const p = s.progress(1);
    expect([p.done, p.running, p.total]).toEqual([1, 1, 4]);
    // Left: lane 0's second trial (20 ms), lane 1's first half (100 ms) and second (200 ms).
    expect(p.etaMs).toBe(320);
    // Two workers: 320 ms of work, but lane 1's second trial alone takes 200 ms.
    expect(s.progress(2).etaMs).toBe(200);
    expect(p.fraction).toBeCloseTo((20 + 100) / (40 + 400), 12);
    expect(progressText(p)).toBe('1 of 4 trials done, 1 running (27%) — about 0 s left');
  });
  it('gives the claims each lane’s medians and how many trials reached the end', () => {
    const s = new Study(plan(2, 1));
    const a = s.next()!;
    s.add(a, [point(0, -5), point(10, -4)], 1);
    expect(s.claimBands()).toEqual([
      {
        label: 'C0',
        trials: 0,
        points: [
          { iter: 0, median: -5, stats: {} },
          { iter: 10, median: -4, stats: {} },
        ],
      },
    ]);
    s.add(a, [point(20, -3)], 2);
    s.finish(a, 2);
    expect(s.claimBands()[0].trials).toBe(1);
    expect(s.end).toBe(20);
  });
});

it('formats durations for people', () => {
  expect(formatDuration(45_400)).toBe('45 s');
  expect(formatDuration(200_000)).toBe('3 min 20 s');
  expect(formatDuration(3_900_000)).toBe('1 h 05 min');
});

describe('exports', () => {
  it('quote CSV text per RFC 4180 and keep text a spreadsheet would run as a formula as text', () => {
    expect(csvField('=HYPERLINK("https://evil.example","x")')).toBe(`"'=HYPERLINK(""https://evil.example"",""x"")"`);
    for (const lead of ['+', '-', '@', '\t']) expect(csvField(`${lead}1+1`)).toBe(`'${lead}1+1`);
    expect(csvField('\r=1')).toBe(`"'\r=1"`);
    expect(csvField('a\rb')).toBe('"a\rb"');
    expect(csvField('a\nb')).toBe('"a\nb"');
    expect(csvField('CD-1')).toBe('CD-1');
    expect(csvField(-9.5)).toBe('-9.5');
    expect(csvField(Number.NEGATIVE_INFINITY)).toBe('-inf');
    // A lane label from a link, in the study's CSV.
    const s = new Study({
      lanes: [{ id: 1, label: '=HYPERLINK("https://evil.example")', claimLabel: null, stats: [] }],
      runs: 1,
      until: 0,
      every: 10,
      seed: 1,
    });
    const t = s.next()!;
    s.add(t, [point(0, -3)], 1);
    s.finish(t, 1);
    const csv = studyCsv(s, 'https://example.org/#label=a%0Db\r\nx');
    expect(csv.split('\n')[2]).toBe(`1,"'=HYPERLINK(""https://evil.example"")",0,done,0,0,-3`);
    expect(csv.split('\n')[0]).toBe('# RBM Playground study: 1 trials per lane, seed 1; page state: https://example.org/#label=a%0Db%0D%0Ax');
  });

  it('a failed trial (its worker died) keeps its records, marked failed; the note says what was lost and kept', () => {
    const s = new Study({ lanes: [{ id: 3, label: 'CD-1', claimLabel: null, stats: [] }], runs: 2, until: 20, every: 10, seed: 1 });
    const [a, b] = [s.next()!, s.next()!];
    s.add(a, [point(0, -5), point(10, -4), point(20, -3)], 3);
    s.finish(a, 3);
    expect(lossText(s)).toBeNull();
    s.add(b, [point(0, -5), point(10, -4.5)], 2);
    s.finish(b, 2, 'a trial worker failed: it stopped answering (no reply in 10 s): it was ended or is stuck');
    expect(lossText(s)).toBe(
      "Lost: the rest of trial 1 of CD-1 (a trial worker failed: it stopped answering (no reply in 10 s): it was ended or is stuck); its records to update 10 are kept, marked failed. Kept: every other trial's records; the bands are over the trials that reached each update. The CSV and JSON downloads hold all of it.",
    );
    const csv = studyCsv(s, 'u').split('\n');
    expect(csv.slice(2, 7)).toEqual([
      '3,CD-1,0,done,0,0,-5',
      '3,CD-1,0,done,10,20,-4',
      '3,CD-1,0,done,20,40,-3',
      '3,CD-1,1,failed,0,0,-5',
      '3,CD-1,1,failed,10,20,-4.5',
    ]);
    expect(s.bands(0).map((x) => x?.trials)).toEqual([2, 2, 1]);
    expect(s.progress(2)).toMatchObject({ done: 1, failed: 1, total: 2 });
  });

  it("writes a live lane's curve as the page holds it, with the page's address", () => {
    const csv = curveCsv(
      { id: 1, label: '=cmd', status: 'fatal', curve: { iter: [0, 100], sweeps: [0, 100], atll: [-11.5, -9.25] } },
      'https://example.org/#a\nb',
    );
    expect(csv).toBe(
      "# RBM Playground curve of lane 1; page state: https://example.org/#a%0Ab\nlane,label,state,iter,sweeps,atll\n1,'=cmd,fatal,0,0,-11.5\n1,'=cmd,fatal,100,100,-9.25\n",
    );
  });

  it('write every trial’s records with the page’s address, numbers in full', () => {
    const s = new Study({ lanes: [{ id: 2, label: 'UCD, "coupled"', claimLabel: null, stats: TAU }], runs: 1, until: 10, every: 10, seed: 5 });
    const t = s.next()!;
    s.add(t, [point(0, -10.123456789012344), point(10, -9, { mean_tau: 2.5, max_tau: 7 })], 3);
    s.finish(t, 3);
    const csv = studyCsv(s, 'https://example.org/#trials=1').split('\n');
    expect(csv[0]).toBe('# RBM Playground study: 1 trials per lane, seed 5; page state: https://example.org/#trials=1');
    expect(csv[1]).toBe('lane,label,trial,state,iter,sweeps,atll,mean_tau,max_tau');
    expect(csv[2]).toBe('2,"UCD, ""coupled""",0,done,0,0,-10.123456789012344,,');
    expect(csv[3]).toBe('2,"UCD, ""coupled""",0,done,10,20,-9,2.5,7');
    const json = JSON.parse(studyJson(s, 'u'));
    expect(json.url).toBe('u');
    expect(json.lanes[0].trials[0].records[0].atll).toBe(-10.123456789012344);
    expect(json.lanes[0].bands[1].median).toBe(-9);
  });
});

describe('where a study ran (issue 30)', () => {
  const plan = { lanes: [{ id: 0, label: 'CD-1', claimLabel: null, stats: [] }], runs: 3, until: 10, every: 10, seed: 1 };

  it('records each trial’s device; a trial rerun on the CPU drops its points; the note and exports say where the trials ran', () => {
    const s = new Study(plan);
    const [a, b, c] = [s.next()!, s.next()!, s.next()!];
    // Nothing asked of a GPU: a CPU study reads as before (no device line, the CSV as before).
    s.add(a, [point(0, -3)], 1);
    expect(s.devices()).toEqual({ gpus: [], onGpu: 0, onCpu: 3, notices: [] });
    expect(deviceNote(s.devices())).toBeNull();
    expect(studyCsv(s, 'u').split('\n')[0]).toBe('# RBM Playground study: 3 trials per lane, seed 1; page state: u');
    s.device(a, 'Adapter A', null, false);
    s.device(b, 'Adapter A', null, false);
    s.add(b, [point(0, -4)], 1);
    // The GPU failed: b runs again on the CPU from update 0, its points dropped.
    s.device(b, null, 'The GPU stopped (lost): the trial runs again on the CPU from update 0.', true);
    expect(b.points).toEqual([]);
    expect(a.points).toHaveLength(1); // a's kept
    s.device(c, null, 'On the CPU: ucd runs on the CPU in the page.', false);
    const d = s.devices();
    expect(d).toEqual({
      gpus: ['Adapter A'],
      onGpu: 1,
      onCpu: 2,
      notices: ['The GPU stopped (lost): the trial runs again on the CPU from update 0.', 'On the CPU: ucd runs on the CPU in the page.'],
    });
    expect(devicesText(d)).toBe('GPU (WebGPU, f32): Adapter A; 2 trials on the CPU (wasm)');
    expect(deviceNote(d)).toMatch(
      /^Device: GPU \(WebGPU, f32\): Adapter A; 2 trials on the CPU \(wasm\)\. A GPU study's numbers are its own .* The GPU stopped \(lost\)/,
    );
    expect(studyCsv(s, 'u').split('\n')[0]).toBe(
      '# RBM Playground study: 3 trials per lane, seed 1; device: GPU (WebGPU, f32): Adapter A; 2 trials on the CPU (wasm); page state: u',
    );
    const json = JSON.parse(studyJson(s, 'u'));
    expect(json.device).toBe('GPU (WebGPU, f32): Adapter A; 2 trials on the CPU (wasm)');
    expect(json.lanes[0].trials.map((t: { device: string }) => t.device)).toEqual(['gpu: Adapter A', 'cpu', 'cpu']);
    expect(devicesText({ gpus: [], onGpu: 0, onCpu: 1, notices: [] })).toBe('CPU (wasm)');
  });
});

describe('the time left of a study measured by AIS', () => {
  it("counts its trials' wall time with the estimates (wallMs), not training alone", () => {
    const plan = { lanes: [{ id: 0, label: 'CD-1', claimLabel: null, stats: [] }], runs: 2, until: 20, every: 10, seed: 1 };
    const eta = (wall: number | undefined) => {
      const s = new Study(plan);
      const t = s.next()!;
      s.next();
      s.add(t, [point(0, -3, {}, 0), point(10, -2, {}, 10)], 10, wall);
      return s.progress(1).etaMs!;
    };
    // 10 updates in 10 ms of training: 1 ms per update; with 100 ms of wall time, 10.
    expect(eta(100)).toBeCloseTo(10 * eta(undefined), 9);
    expect(eta(undefined)).toBe(30); // 10 + 20 updates left at 1 ms each
  });
});
