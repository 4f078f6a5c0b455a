// End-to-end tests of issue 27 on the built page in headless Chromium: what this run shows is
// written from its numbers; a classroom link's keys hint names only visible buttons; a preset's
// name alone sets the whole preset up; the Share dialog's "Only …" sets give one live run; an
// edit asks before it discards a study under way; a live run exports CSV and JSON with the
// page's address; the chart's PNG carries a title and legend below the chart; the readout
// wraps, never cuts.
//
// Run: npm run test:e2e   (builds the page first), or node --test tests/e2e/trust.test.mjs
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { enter, openPage, rbmCli, servePage, waitForUpdates } from './setup.mjs';

const env = servePage('/');

/** Width and height of a PNG file (its IHDR chunk). */
function pngSize(bytes) {
  assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

test('a live run: the line under Start says what it shows from its numbers; its records download as CSV and JSON with the address; the chart PNG has a frame', {
  timeout: 180_000,
}, async () => {
  const { page, errors } = await openPage(env.browser, `${env.server.url}#stop=600`, { width: 1400, height: 900 });
  assert.doesNotMatch(await page.textContent('#intro'), /stays near the bound/);
  assert.equal(await page.textContent('#findings'), '');
  await page.evaluate(() => document.querySelector('#run').click());
  await waitForUpdates(page, 600);
  await page.waitForFunction(() => /^This run so far: CD-k reads −\d+\.\d{3} at update 600/.test(document.querySelector('#findings').textContent));
  const findings = await page.textContent('#findings');
  // The numbers are the lanes' own: the latest point of each curve.
  const last = await page.evaluate(() => window.__rbm.lanes().map((l) => l.atll.at(-1)));
  assert.ok(findings.includes(last[0].toFixed(3).replace('-', '−')), findings);
  assert.ok(findings.includes(`PCD-k reads ${last[1].toFixed(3).replace('-', '−')}`), findings);

  // Every run exports its records: CSV and JSON, with the page's address.
  await page.waitForSelector('#study-export:not([hidden])');
  assert.match(await page.textContent('#export-what'), /Every lane's curve/);
  const [csvFile] = await Promise.all([page.waitForEvent('download'), page.evaluate(() => document.querySelector('#export-csv').click())]);
  const csv = readFileSync(await csvFile.path(), 'utf8')
    .trim()
    .split('\n');
  assert.equal(csvFile.suggestedFilename(), 'rbm-run-bas4-seed1-2lanes.csv');
  assert.match(csv[0], /^# RBM Playground run: 2 lanes, one live run each; page state: http:\/\/[^ ]+#data=bas4&/);
  assert.equal(csv[1], 'lane,label,state,iter,sweeps,atll');
  assert.ok(
    csv.some((r) => r.startsWith('1,PCD-k,done,600,600,')),
    csv.slice(0, 5).join('\n'),
  );
  const [jsonFile] = await Promise.all([page.waitForEvent('download'), page.evaluate(() => document.querySelector('#export-json').click())]);
  const json = JSON.parse(readFileSync(await jsonFile.path(), 'utf8'));
  assert.match(json.url, /#data=bas4&/);
  assert.deepEqual(
    json.lanes.map((l) => [l.algo, l.records.at(-1).iter]),
    [
      ['cd', 600],
      ['pcd', 600],
    ],
  );

  // The chart's PNG: the chart with a title above and the legend and address below.
  const canvas = await page.$eval('#chart .uplot canvas', (c) => ({ width: c.width, height: c.height }));
  const [pngFile] = await Promise.all([page.waitForEvent('download'), page.evaluate(() => document.querySelector('#chart .png-export').click())]);
  const size = pngSize(readFileSync(await pngFile.path()));
  assert.equal(size.width, canvas.width);
  assert.ok(size.height >= canvas.height + 60, `${JSON.stringify(size)} against the chart's ${JSON.stringify(canvas)}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a classroom link: a hidden Reset is not in the keys hint; a preset's name alone sets the whole preset up", { timeout: 120_000 }, async () => {
  const { page, errors } = await openPage(env.browser, `${env.server.url}#hide=reset`);
  const keys = await page.innerText('.keys');
  assert.match(keys, /s start\/pause/);
  assert.doesNotMatch(keys, /reset/);
  await page.close();
  const { page: p2 } = await openPage(env.browser, `${env.server.url}#preset=ucd-bas4`);
  const s = await p2.evaluate(() => window.__rbm.state());
  assert.deepEqual(
    s.lanes.map((l) => l.label),
    ['CD-1', 'PCD-1', 'UCD'],
  );
  assert.deepEqual([s.preset, s.shared.hidden, s.stop, s.trials], ['ucd-bas4', 16, 10000, 25]);
  assert.equal(await p2.isHidden('#notice'), true);
  assert.deepEqual(errors, []);
  await p2.close();
});

test('Share: Trials is listed, the "Only …" sets give one live run unless the teacher ticks the study', { timeout: 120_000 }, async () => {
  const { page, errors } = await openPage(env.browser, `${env.server.url}#preset=ucd-bas4`);
  await page.evaluate(() => document.querySelector('#share-button').click());
  await page.waitForSelector('#share[open]');
  assert.equal(await page.isChecked('#share input[data-part="trials"]'), true);
  assert.equal(await page.isChecked('#share-study'), true);
  assert.match(await page.inputValue('#share-link'), /&trials=25/);
  await page.evaluate(() =>
    [...document.querySelectorAll('#share .share-presets button')].find((b) => /Only Start and the learning rate/.test(b.textContent)).click(),
  );
  assert.equal(await page.isChecked('#share input[data-part="trials"]'), false);
  assert.equal(await page.isChecked('#share-study'), false);
  const link = await page.inputValue('#share-link');
  assert.doesNotMatch(link, /trials=\d/);
  assert.match(link, /hide=[^&]*trials/);
  // Ticked again, the link keeps the study.
  await page.evaluate(() => {
    const box = document.querySelector('#share-study');
    box.click();
  });
  await page.waitForFunction(() => /&trials=25/.test(document.querySelector('#share-link').value));
  assert.deepEqual(errors, []);
  await page.close();
});

test('an edit asks before it discards a study under way; declined, the study runs on', { timeout: 180_000 }, async () => {
  const { page, errors } = await openPage(env.browser, `${env.server.url}#trials=2&stop=20000`);
  const dialogs = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.evaluate(() => document.querySelector('#run').click());
  await page.waitForFunction(() => window.__rbm.study()?.lanes.some((l) => l.trials.some((t) => t.iters.length > 1)), null, { timeout: 60_000, polling: 100 });
  // A lane's card says it runs in the study (its own worker keeps the starting model), not "ready · update 0".
  await page.waitForFunction(() =>
    /^in the study: trials running · panels: its starting model/.test(document.querySelector('article[data-lane-id="0"] .status').textContent),
  );
  await enter(page, '#lane-0-lr', '0.02');
  assert.equal(dialogs.length, 1);
  assert.match(dialogs[0], /^Changing learning rate η discards the study under way \(\d+ of 4 trials done/);
  // Declined: the field shows the value in use again (with the page's next frame).
  await page.waitForFunction(() => document.querySelector('#lane-0-lr').value === '0.1', null, { timeout: 5_000 });
  assert.equal(await page.evaluate(() => window.__rbm.study()?.status), 'running');
  await enter(page, '#stop', '500');
  assert.equal(dialogs.length, 2);
  await page.waitForFunction(() => document.querySelector('#stop').value === '20000', null, { timeout: 5_000 });
  assert.notEqual(await page.evaluate(() => window.__rbm.study()), null);
  // Reset too.
  await page.evaluate(() => document.querySelector('#reset').click());
  assert.equal(dialogs.length, 3);
  assert.match(dialogs[2], /^Reset discards the study under way/);
  assert.notEqual(await page.evaluate(() => window.__rbm.study()), null);
  await page.evaluate(() => document.querySelector('#run').click());
  assert.deepEqual(errors, []);
  await page.close();
});

test('a study’s readout wraps its values with their bands, never cutting one', { timeout: 180_000 }, async () => {
  const { page, errors } = await openPage(env.browser, `${env.server.url}#preset=sdcp-shifting-bar&trials=2&stop=200`, { width: 1400, height: 900 });
  await page.evaluate(() => document.querySelector('#run').click());
  await page.waitForFunction(() => window.__rbm.study()?.status === 'done', null, { timeout: 150_000, polling: 250 });
  await page.waitForFunction(() => /q10–q90/.test(document.querySelector('#chart-readout').textContent));
  await page.waitForFunction(() => window.__rbm.drawn());
  const cut = await page.$$eval('#chart-readout > span', (spans) => spans.filter((s) => s.scrollWidth > s.clientWidth + 1).map((s) => s.textContent));
  assert.deepEqual(cut, []);
  assert.match(await page.textContent('#findings'), /^This study on the medians of 2 trials per lane: \d of the paper's \d statements hold/);
  const [jsonFile] = await Promise.all([page.waitForEvent('download'), page.evaluate(() => document.querySelector('#export-json').click())]);
  const json = JSON.parse(readFileSync(await jsonFile.path(), 'utf8'));
  assert.ok(json.claims.length > 0);
  for (const c of json.claims) assert.ok(['holds', 'fails', 'undecided'].includes(c.status) && typeof c.detail === 'string', JSON.stringify(c));
  assert.deepEqual(errors, []);
  await page.close();
});

// Issue 27: "PNGs of filters, samples and bars too". Each picture's PNG is the canvas enlarged
// (at least 480 px wide, never smoothed) with a title above and its caption and the page's address below.
test("a lane's pictures download as PNGs: filters and the model's bars, enlarged, titled and captioned", { timeout: 120_000 }, async () => {
  const { page, errors } = await openPage(env.browser, `${env.server.url}#stop=200`, { width: 1400, height: 900 });
  await page.evaluate(() => document.querySelector('#run').click());
  await waitForUpdates(page, 200);
  for (const panel of ['filters', 'distribution']) {
    const root = `article[data-lane-id="0"] .panel-${panel}`;
    // A picture is drawn once it is on screen.
    await page.evaluate((r) => document.querySelector(r).scrollIntoView(), root);
    await page.waitForFunction((r) => {
      const c = document.querySelector(`${r} canvas`);
      return c && c.width > 0 && c.height > 0;
    }, root);
    const canvas = await page.$eval(`${root} canvas`, (c) => ({ width: c.width, height: c.height }));
    const [file] = await Promise.all([page.waitForEvent('download'), page.evaluate((r) => document.querySelector(`${r} .png-export`).click(), root)]);
    assert.match(file.suggestedFilename(), /\.png$/, panel);
    const size = pngSize(readFileSync(await file.path()));
    const scale = Math.max(1, Math.ceil(480 / canvas.width));
    assert.equal(size.width, canvas.width * scale, `${panel}: ${JSON.stringify(size)} from ${JSON.stringify(canvas)}`);
    assert.ok(size.height >= canvas.height * scale + 40, `${panel}: a title and caption around the picture: ${JSON.stringify(size)}`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

// Issue 29: next to the claims' verdicts, a reader of an S-DCP preset sees where each claim
// holds — our recorded explorer run (www/explorer/), with its command — loaded only for it.
test("an S-DCP preset shows where each of the paper's claims holds, from our explorer run, with the preset's own cells outlined", {
  timeout: 120_000,
}, async () => {
  const { page, errors } = await openPage(env.browser, `${env.server.url}#preset=sdcp-shifting-bar`, { width: 1400, height: 900 });
  await page.waitForSelector('#claim-maps:not([hidden])');
  const maps = await page.$$eval('#claim-maps .claim-map', (fs) =>
    fs.map((f) => ({
      caption: f.querySelector('figcaption').firstChild.textContent,
      cells: f.querySelectorAll('tbody td').length,
      outlined: [...f.querySelectorAll('td.own-setting')].map((td) => td.textContent),
    })),
  );
  const claims = await page.evaluate(() =>
    window.__rbm
      .catalog()
      .presets.find((p) => p.name === 'sdcp-shifting-bar')
      .claims.map((c) => c.text),
  );
  assert.deepEqual(
    maps.map((m) => m.caption),
    claims,
  );
  for (const m of maps) {
    assert.equal(m.cells, 20, m.caption);
    assert.equal(m.outlined.length, 2, `${m.caption}: the preset's two rates at its own σ`);
    for (const t of m.outlined) assert.match(t, /^[✓✗?]/);
  }
  assert.match(await page.textContent('#claim-maps-note'), /^Our measurement, not the paper's: `rbm explore sdcp-shifting-bar --lrs /);
  // The first screen (no recorded run) has no map.
  const { page: first } = await openPage(env.browser, env.server.url);
  assert.equal(await first.isVisible('#claim-maps'), false);
  assert.deepEqual(errors, []);
  await first.close();
  await page.close();
});

/** The page's own explorer maps: per claim (its caption), each run cell's verdict and number as
 * the page holds them (data-holds, data-value), by cell index. */
const exploreCells = (page) =>
  page.$$eval('#explore-maps .claim-map', (fs) =>
    fs.map((f) => ({
      claim: f.querySelector('figcaption').firstChild.textContent,
      cells: Object.fromEntries(
        [...f.querySelectorAll('td[data-cell]')].map((td) => [td.dataset.cell, [td.dataset.holds, td.dataset.value, td.classList.contains('own-setting')]]),
      ),
      empty: f.querySelectorAll('td.empty').length,
    })),
  );

/** Sets the page's explorer fields and waits for the estimate of the grid they describe. */
async function exploreGrid(page, xs, ys, trials, iters) {
  await enter(page, '#explore-xs', xs);
  await enter(page, '#explore-ys', ys);
  await enter(page, '#explore-trials', trials);
  await enter(page, '#explore-iters', iters);
  await page.waitForFunction(() => document.querySelector('#explore-estimate').dataset.ok === 'true');
}

// Issue 29: the page runs a claims-explorer grid itself over its trial workers, judged by the
// core: every cell's verdict and number are `rbm explore`'s for the same grid and seed, bit for
// bit; bad fields are refused at the field; Cancel stops the grid and keeps the finished cells.
test("the page's own explorer grid equals rbm explore's cell for cell; bad values are refused at their field; Cancel keeps the finished cells", {
  timeout: 300_000,
}, async () => {
  const { page, errors } = await openPage(env.browser, `${env.server.url}#preset=sdcp-bas3`, { width: 1400, height: 900 });
  await page.waitForSelector('#explore:not([hidden])');
  // Defaults around the preset's own setting (η = 0.3, σ = 0.01), with the cost model's estimate.
  assert.equal(await page.inputValue('#explore-xs'), '0.075, 0.15, 0.3, 0.6');
  assert.equal(await page.inputValue('#explore-ys'), '0.001, 0.01, 0.1');
  await page.waitForFunction(() =>
    /^12 cells × 5 lanes × 3 trials = 180 trials of 50,000 updates: about /.test(document.querySelector('#explore-estimate').textContent),
  );
  // Bad input: refused at its field, and nothing can start.
  await enter(page, '#explore-xs', '0.1, NaN');
  await page.waitForFunction(() => /'NaN' is not a number/.test(document.querySelector('#explore-xs-error').textContent));
  assert.equal(await page.getAttribute('#explore-xs', 'aria-invalid'), 'true');
  assert.equal(await page.isDisabled('#explore-run'), true);
  await enter(page, '#explore-ys', '-0.1');
  await page.waitForFunction(() => /above 0, got -0.1/.test(document.querySelector('#explore-ys-error').textContent));
  await enter(page, '#explore-xs', '1 2 3 4 5 6 7 8');
  await enter(page, '#explore-ys', '1 2 3 4 5 6 7 8 9');
  await page.waitForFunction(() => /at most 8 values/.test(document.querySelector('#explore-ys-error').textContent));
  await enter(page, '#explore-ys', '1 2 3 4 5 6 7 8');
  await enter(page, '#explore-trials', '25');
  await page.waitForFunction(() =>
    /^8,000 trials \(64 cells × 5 lanes × 25\): the page runs at most 2,000/.test(document.querySelector('#explore-estimate').textContent),
  );
  assert.equal(await page.isDisabled('#explore-run'), true);
  await enter(page, '#explore-trials', '0');
  await page.waitForFunction(() => /from 1 to 25, got '0'/.test(document.querySelector('#explore-trials-error').textContent));

  // A 2 × 2 grid of one trial per cell, run in the page and by the command line.
  const args = ['--lrs', '0.1,0.3', '--init-sigmas', '0.001,0.01', '--trials-per-cell', '1', '--iters', '300', '--every', '100', '--seed', '1'];
  await exploreGrid(page, '0.1, 0.3', '0.001, 0.01', '1', '300');
  await page.evaluate(() => document.querySelector('#explore-run').click());
  await page.waitForFunction(() => document.querySelector('#explore-progress').dataset.status === 'done', null, { timeout: 180_000 });
  assert.match(await page.textContent('#explore-progress'), /^Grid: 4 of 4 cells done \(100%\) — finished in /);
  const note = await page.textContent('#explore-note');
  assert.ok(note.includes(`\`rbm explore sdcp-bas3 ${args.join(' ')}\``), note);
  const cli = rbmCli(['explore', 'sdcp-bas3', ...args]).filter((l) => l.type === 'claim');
  const maps = await exploreCells(page);
  const claims = [...new Set(cli.map((l) => l.claim))];
  assert.deepEqual(
    maps.map((m) => m.claim),
    claims,
  );
  for (const m of maps) {
    const want = Object.fromEntries(cli.filter((l) => l.claim === m.claim).map((l) => [String(l.cell), [String(l.holds), String(l.value), l.preset_point]]));
    assert.deepEqual(m.cells, want, m.claim);
    assert.equal(m.empty, 0);
  }
  // The preset's own point (η = 0.3, σ = 0.01) is outlined in every map.
  assert.ok(maps.every((m) => m.cells['3'][2] && Object.values(m.cells).filter((c) => c[2]).length === 1));

  // Cancel: a longer grid stops once its first cell is done, keeping it and nothing else.
  await exploreGrid(page, '0.1, 0.3, 0.5', '0.001, 0.01', '1', '20000');
  await page.evaluate(() => document.querySelector('#explore-run').click());
  await page.waitForFunction(() => document.querySelectorAll('#explore-maps td[data-cell]').length > 0, null, { timeout: 180_000 });
  await page.evaluate(() => document.querySelector('#explore-cancel').click());
  await page.waitForFunction(() => document.querySelector('#explore-progress').dataset.status === 'cancelled');
  const progress = await page.textContent('#explore-progress');
  const done = Number(/^Grid: (\d+) of 6 cells done/.exec(progress)?.[1]);
  assert.ok(done >= 1 && done < 6, progress);
  assert.match(progress, new RegExp(`${6 - done} cancelled`));
  assert.equal(await page.isVisible('#explore-cancel'), false);
  // Two frames later nothing has moved: the workers are gone, the finished cells stay.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  assert.equal(await page.textContent('#explore-progress'), progress);
  const kept = await exploreCells(page);
  for (const m of kept) assert.equal(Object.keys(m.cells).length, done, m.claim);
  assert.deepEqual(errors, []);
  await page.close();
});

// Issue 29: a trial worker of the page's grid that dies fails its cell only, as a study's trial:
// the page names it, the other cells run to their end and are drawn.
test('a dead trial worker fails its explorer cell only: the page names it and the other cells finish', { timeout: 240_000 }, async () => {
  const { page, errors } = await openPage(env.browser, `${env.server.url}#preset=sdcp-bas3`, { width: 1400, height: 900 });
  await page.waitForSelector('#explore:not([hidden])');
  await exploreGrid(page, '0.1, 0.3', '0.001, 0.01', '1', '5000');
  await page.evaluate(() => document.querySelector('#explore-run').click());
  await page.waitForFunction(() => document.querySelector('#explore-progress').dataset.status === 'running');
  const cell = await page.evaluate(() => window.__rbm.killExplorerWorker('crash'));
  assert.ok(cell !== null, 'a trial was under way');
  await page.waitForFunction(() => document.querySelector('#explore-progress').dataset.status === 'done', null, { timeout: 180_000 });
  assert.match(await page.textContent('#explore-progress'), /^Grid: 3 of 4 cells done, 1 failed \(100%\)/);
  assert.match(
    await page.textContent('#explore-failed'),
    new RegExp(`^Failed: cell ${cell} \\(trial 0 of .*deliberate panic.*\\)\\. The other cells are kept\\.$`),
  );
  for (const m of await exploreCells(page)) {
    assert.deepEqual(
      Object.keys(m.cells).sort(),
      ['0', '1', '2', '3'].filter((c) => c !== String(cell)),
      m.claim,
    );
    assert.equal(m.empty, 1, m.claim);
  }
  assert.deepEqual(errors, []);
  await page.close();
});
