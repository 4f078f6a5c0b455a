// Issue 27, "files a researcher can use": every run (live or study) exports CSV and JSON of its
// records with the page's address; a study's JSON holds the claims' verdicts with their numbers;
// a PNG's legend wraps to its width and never cuts a word.
import { describe, expect, it } from 'vitest';
import { App } from '../src/app/app';
import { firstScreen } from '../src/app/state';
import { type RunLane, runCsv, runJson, Study, studyJson } from '../src/app/study';
import type { Verdict } from '../src/generated/core';
import { legendLayout, wrapText } from '../src/views/png';
import { FakeWorker } from './fakeWorker';
import { catalog } from './fixture';

const URL = 'https://example.org/rbm/#data=bas4&lane=cd&lane=pcd';

describe('a live run’s files', () => {
  const lanes: RunLane[] = [
    { id: 0, label: 'CD-1', status: 'paused', algo: 'cd', options: { lr: 0.1, k: 1 }, curve: { iter: [0, 100], sweeps: [0, 100], atll: [-11.09, -4.25] } },
    {
      id: 3,
      label: '=HYPERLINK("x")',
      status: 'fatal',
      algo: 'pcd',
      options: { lr: 0.1 },
      curve: { iter: [0], sweeps: [0], atll: [Number.NEGATIVE_INFINITY] },
    },
  ];

  it('CSV: the page’s address first, then every lane’s records, numbers in full', () => {
    const lines = runCsv(lanes, URL).trimEnd().split('\n');
    expect(lines[0]).toBe(`# RBM Playground run: 2 lanes, one live run each; page state: ${URL}`);
    expect(lines.slice(1)).toEqual([
      'lane,label,state,iter,sweeps,atll',
      '0,CD-1,paused,0,0,-11.09',
      '0,CD-1,paused,100,100,-4.25',
      `3,"'=HYPERLINK(""x"")",fatal,0,0,-inf`,
    ]);
  });

  it('JSON: the address, each lane’s algorithm, options and records', () => {
    const j = JSON.parse(runJson(lanes, URL));
    expect(j.url).toBe(URL);
    expect(j.lanes[0]).toEqual({
      id: 0,
      label: 'CD-1',
      algo: 'cd',
      status: 'paused',
      options: { lr: 0.1, k: 1 },
      records: [
        { iter: 0, sweeps: 0, atll: -11.09 },
        { iter: 100, sweeps: 100, atll: -4.25 },
      ],
    });
    expect(j.lanes[1].records[0].atll).toBe('-Infinity');
  });

  it('the page downloads a live run’s CSV and JSON (no study needed)', () => {
    const files: [string, string][] = [];
    const app = new App(catalog, (name) => new FakeWorker(name), { changed: () => undefined, download: (name, text) => files.push([name, text]) }, {});
    app.load(firstScreen(catalog));
    app.exportRun('csv', URL);
    app.exportRun('json', URL);
    expect(files.map(([n]) => n)).toEqual(['rbm-run-bas4-seed1-2lanes.csv', 'rbm-run-bas4-seed1-2lanes.json']);
    expect(files[0][1].split('\n')[0]).toContain(URL);
    expect(JSON.parse(files[1][1]).lanes.map((l: { algo: string }) => l.algo)).toEqual(['cd', 'pcd']);
  });
});

describe('a study’s JSON', () => {
  it('holds the claims’ verdicts with the numbers behind them', () => {
    const study = new Study({ lanes: [{ id: 0, label: 'CD-1', claimLabel: 'CD-1', stats: [] }], runs: 1, until: 10, every: 10, seed: 1 });
    const v: Verdict = {
      claim: 'CD-1 falls back',
      status: 'fails',
      holds: false,
      detail: 'median ends 0.012 below its best (−3.912 at 2 100)',
      trials: 25,
    } as Verdict;
    const j = JSON.parse(studyJson(study, URL, [v]));
    expect(j.url).toBe(URL);
    expect(j.claims).toEqual([
      { claim: 'CD-1 falls back', status: 'fails', holds: false, trials: 25, detail: 'median ends 0.012 below its best (−3.912 at 2 100)' },
    ]);
    expect(JSON.parse(studyJson(study, URL)).claims).toEqual([]);
  });
});

describe('a PNG’s legend', () => {
  // A monospace measure: 7 pixels a character.
  const measure = (s: string) => 7 * s.length;

  it('wraps a long entry at spaces and keeps every character', () => {
    const text = 'CD-12: −2.636 (q10–q90 −2.760 … −2.512)';
    const lines = wrapText(text, 100, measure);
    expect(lines.join(' ')).toBe(text);
    for (const l of lines) expect(measure(l)).toBeLessThanOrEqual(100);
    // A word longer than a line goes in pieces, none lost.
    const long = wrapText('x'.repeat(40), 70, measure);
    expect(long.join('')).toBe('x'.repeat(40));
    for (const l of long) expect(measure(l)).toBeLessThanOrEqual(70);
  });

  it('places entries in rows within the width, never past it, each entry whole', () => {
    const items = ['CD-12: −2.636 (q10–q90 −2.760 … −2.512)', 'PCD-12: −3.101', 'S-DCP d=3 K′=4: −2.290 (q10–q90 −2.301 … −2.280)', 'bound: −2.197'].map(
      (text) => ({
        text,
        colour: '#000',
      }),
    );
    const width = 300;
    const { places, rows } = legendLayout(items, width, measure, 30, 16);
    expect(places.map((p) => p.lines.join(' '))).toEqual(items.map((i) => i.text));
    for (const p of places) for (const l of p.lines) expect(p.x + 30 + measure(l)).toBeLessThanOrEqual(width);
    expect(rows.length).toBeGreaterThan(1);
    expect(Math.max(...places.map((p) => p.row))).toBe(rows.length - 1);
  });
});
