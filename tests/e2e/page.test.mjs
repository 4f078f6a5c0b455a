// End-to-end tests of the built page (www/dist) in headless Chromium: training, pause/reset,
// reproducibility, a diverging lane, refused hyperparameters and the lane picker. They read
// the numbers the page exposes (window.__rbm and data attributes), never pixels.
//
// Run: npm run test:e2e   (builds the page first), or node --test tests/e2e/page.test.mjs
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { launch } from './browser.mjs';
import { serve } from './server.mjs';

const dist = fileURLToPath(new URL('../../www/dist', import.meta.url));
let server;
let browser;

before(async () => {
  assert.ok(existsSync(`${dist}/index.html`), 'www/dist is missing: run `npm run build` first');
  // Served under a sub-path: the page must work from any folder (relative asset paths).
  server = await serve(dist, '/course/rbm/');
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** A fresh page with its console errors collected. */
async function open() {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(server.url);
  await page.waitForFunction(() => window.__rbm?.ready, null, { timeout: 20_000 });
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.status === 'ready' && l.atll.length === 1), null, { timeout: 20_000 });
  return { page, errors };
}

const lanes = (page) => page.evaluate(() => window.__rbm.lanes());

/** Waits until every lane selected by `ids` has made at least `iter` updates. */
async function waitForUpdates(page, iter, ids = null, timeout = 90_000) {
  await page.waitForFunction(
    ([n, ids]) => window.__rbm.lanes().filter((l) => !ids || ids.includes(l.id)).every((l) => l.iter >= n && l.iters.at(-1) >= n),
    [iter, ids],
    { timeout, polling: 100 },
  );
}

function assertRising(lane) {
  assert.ok(lane.atll.length >= 5, `${lane.algo}: only ${lane.atll.length} points`);
  assert.ok(lane.atll.every(Number.isFinite), `${lane.algo}: non-finite point`);
  const first = lane.atll[0];
  const last = lane.atll.at(-1);
  assert.ok(last > first + 0.3, `${lane.algo}: the curve did not rise (${first} → ${last})`);
}

test('the first screen trains CD-1 and PCD, both curves rise, pause holds, reset replays the same curve', { timeout: 240_000 }, async () => {
  const { page, errors } = await open();
  const start = await lanes(page);
  assert.deepEqual(start.map((l) => l.algo), ['cd', 'pcd']);
  assert.equal(start[0].atll[0], start[1].atll[0], 'lanes of one seed start from the same model');
  assert.match(await page.textContent('#chart-axes'), /average log-likelihood \(exact\)/);
  assert.match(await page.textContent('#chart'), /bound[^]*-3\.379/);

  await page.click('#run');
  await waitForUpdates(page, 400);
  const run1 = await lanes(page);
  for (const lane of run1) {
    assertRising(lane);
    assert.equal(lane.status, 'running');
    assert.ok(lane.rate > 0);
  }
  for (const id of [0, 1]) {
    const canvas = await page.$(`article[data-lane-id="${id}"] canvas.filters`);
    assert.ok((await canvas.evaluate((c) => c.width)) > 0, 'weight filters drawn');
    assert.match(await canvas.getAttribute('aria-label'), /16 hidden units/);
  }
  assert.equal(await page.getAttribute('article[data-lane-id="0"]', 'data-status'), 'running');

  // Pause: nothing moves any more.
  await page.click('#run');
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.status === 'paused'));
  assert.equal(await page.textContent('#run'), 'Start');
  const paused = (await lanes(page)).map((l) => l.iter);
  await page.waitForTimeout(800);
  assert.deepEqual((await lanes(page)).map((l) => l.iter), paused);

  // Reset: back to update 0; the same seed gives the same curve again, point for point.
  await page.click('#reset');
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.iter === 0 && l.atll.length === 1));
  assert.deepEqual((await lanes(page)).map((l) => l.atll[0]), run1.map((l) => l.atll[0]));
  await page.keyboard.press('s'); // the keyboard shortcut starts training too
  await waitForUpdates(page, 300);
  await page.keyboard.press('s');
  const run2 = await lanes(page);
  for (const [a, b] of run1.map((l, i) => [l, run2[i]])) {
    const n = b.iters.filter((x) => x <= 300).length;
    assert.ok(n > 3);
    assert.deepEqual(b.iters.slice(0, n), a.iters.slice(0, n));
    assert.deepEqual(b.atll.slice(0, n), a.atll.slice(0, n), `${a.algo}: reset did not replay the curve`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('a diverging lane shows a readable message while the other keeps rising', { timeout: 240_000 }, async () => {
  const { page, errors } = await open();
  await page.fill('#lane-1-lr', '1e39');
  await page.dispatchEvent('#lane-1-lr', 'change');
  await page.waitForFunction(() => {
    const l = window.__rbm.lanes()[1];
    return l.status === 'ready' && l.atll.length === 1 && Object.keys(l.fieldErrors).length === 0;
  });
  await page.click('#run');
  await page.waitForFunction(() => window.__rbm.lanes()[1].status === 'failed', null, { timeout: 30_000 });
  const failed = (await lanes(page))[1];
  assert.match(failed.message, /diverged at update \d+/);
  assert.match(failed.message, /smaller learning rate/);
  const shown = await page.textContent('article[data-lane-id="1"] .lane-error');
  assert.match(shown, /training diverged/);
  assert.ok(await page.isVisible('article[data-lane-id="1"] .lane-error'));
  await waitForUpdates(page, 400, [0]);
  const [cd, pcd] = await lanes(page);
  assertRising(cd);
  assert.equal(cd.status, 'running');
  assert.ok(pcd.atll.every(Number.isFinite), 'the failed lane keeps only finite points');
  assert.equal(pcd.status, 'failed');
  assert.deepEqual(errors, []);
  await page.close();
});

test('bad hyperparameters are refused next to their input and the lane keeps its settings', { timeout: 120_000 }, async () => {
  const { page, errors } = await open();
  // Refused by the core (a negative learning rate) …
  await page.fill('#lane-0-lr', '-1');
  await page.dispatchEvent('#lane-0-lr', 'change');
  await page.waitForFunction(() => /learning rate/.test(document.querySelector('#lane-0-lr-err').textContent));
  assert.equal(await page.getAttribute('#lane-0-lr', 'aria-invalid'), 'true');
  assert.match(await page.textContent('#lane-0-lr-err'), /not applied/);
  // … and by the page (not a whole number), each next to its own input.
  await page.fill('#lane-0-k', '1.5');
  await page.dispatchEvent('#lane-0-k', 'change');
  await page.waitForFunction(() => /whole number/.test(document.querySelector('#lane-0-k-err').textContent));
  await page.fill('#hidden', '0');
  await page.dispatchEvent('#hidden', 'change');
  await page.waitForFunction(() => /hidden units/.test(document.querySelector('#err-hidden').textContent));
  // The lane still trains with its previous, valid settings.
  await page.click('#run');
  await waitForUpdates(page, 400, [0]);
  assertRising((await lanes(page))[0]);
  // Fixing the input clears its message.
  await page.fill('#lane-0-lr', '0.05');
  await page.dispatchEvent('#lane-0-lr', 'change');
  await page.waitForFunction(() => document.querySelector('#lane-0-lr-err').textContent === '');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the lane picker offers every algorithm and adds a lane with its own options', { timeout: 120_000 }, async () => {
  const { page, errors } = await open();
  const offered = await page.$$eval('#add-algo option', (os) => os.map((o) => o.value));
  for (const name of ['cd', 'mf-cd', 'pcd', 'fpcd']) assert.ok(offered.includes(name), `${name} is offered`);
  await page.selectOption('#add-algo', 'fpcd');
  await page.click('#add');
  await page.waitForSelector('article[data-algo="fpcd"]');
  const id = await page.getAttribute('article[data-algo="fpcd"]', 'data-lane-id');
  for (const key of ['lr', 'k', 'chains', 'fast_lr', 'fast_decay']) {
    assert.ok(await page.$(`#lane-${id}-${key}`), `input ${key}`);
    assert.ok((await page.textContent(`label[for="lane-${id}-${key}"]`)).length > 0, `label of ${key}`);
  }
  await page.waitForFunction((id) => window.__rbm.lanes().find((l) => l.id === Number(id))?.status === 'ready', id);
  await page.click('#run');
  await waitForUpdates(page, 100, [Number(id)]);
  await page.click(`article[data-lane-id="${id}"] button.remove`);
  await page.waitForFunction(() => window.__rbm.lanes().length === 2);
  assert.equal(await page.$('article[data-algo="fpcd"]'), null);
  assert.deepEqual(errors, []);
  await page.close();
});

test('another data set and the equal-compute axis', { timeout: 120_000 }, async () => {
  const { page, errors } = await open();
  await page.selectOption('#dataset', 'shifting-bar');
  await page.waitForFunction(() => /-2\.197/.test(document.querySelector('#chart').textContent));
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.status === 'ready' && l.atll.length === 1));
  await page.check('input[name="axis"][value="sweeps"]');
  await page.waitForFunction(() => /Gibbs sweeps/.test(document.querySelector('#chart-axes').textContent));
  await page.click('#run');
  await waitForUpdates(page, 400);
  for (const lane of await lanes(page)) assertRising(lane);
  const caption = await page.textContent('article[data-lane-id="0"] .dist-caption');
  assert.match(caption, /9 distinct training patterns/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the S-DCP Shifting Bar preset: five labelled lanes at equal compute, exact curves below the bound, stop at the end', { timeout: 240_000 }, async () => {
  const { page, errors } = await open();
  const offered = await page.$$eval('#preset option', (os) => os.map((o) => o.value));
  for (const name of ['', 'sdcp-shifting-bar', 'sdcp-bas3', 'ucd-bas4']) assert.ok(offered.includes(name), `preset '${name}' is offered`);
  await page.selectOption('#preset', 'sdcp-shifting-bar');
  await page.waitForFunction(() => {
    const ls = window.__rbm.lanes();
    return ls.length === 5 && ls.every((l) => l.status === 'ready' && l.atll.length === 1);
  }, null, { timeout: 30_000 });
  const start = await lanes(page);
  assert.deepEqual(start.map((l) => l.label), ['CD-12', 'PCD-12', "S-DCP d=3 K'=4", "CS-DCP d=3 K'=4", 'CG-12']);
  assert.deepEqual(start.map((l) => l.algo), ['cd', 'pcd', 'sdcp', 'cs-dcp', 'cg']);
  assert.deepEqual(start.map((l) => l.id), [0, 1, 2, 3, 4], 'lane i uses the preset\'s stream index i');
  assert.ok(start.every((l) => l.inputs.lr === '0.3'), 'the first of the paper\'s rates');
  assert.equal(start[0].inputs.k, '12');
  assert.deepEqual([start[2].inputs.d, start[2].inputs.kprime], ['3', '4']);
  assert.ok(start.every((l) => l.atll[0] === start[0].atll[0]), 'every lane starts from the same model');
  assert.deepEqual(await page.evaluate(() => window.__rbm.settings()), { dataset: 'shifting-bar', hidden: 4, seed: 1, init: 'sdcp', every: 100, stop: 50000 });
  assert.equal(await page.inputValue('#dataset'), 'shifting-bar');
  assert.equal(await page.inputValue('#hidden'), '4');
  assert.equal(await page.evaluate(() => window.__rbm.axis()), 'sweeps', 'equal compute on the x axis');
  const note = await page.textContent('#preset-note');
  assert.match(note, /Upadhya & Sastry 2017/);
  assert.match(note, /−3\.15/);
  assert.match(note, /d·K′ = 3·4/);
  assert.match(await page.textContent('#lane-2-title'), /S-DCP d=3 K'=4/);
  await page.waitForFunction(() => /-2\.197/.test(document.querySelector('#chart').textContent));

  await page.click('#run');
  await waitForUpdates(page, 3000);
  const bound = -Math.log(9);
  for (const lane of await lanes(page)) {
    assert.equal(lane.status, 'running', lane.label);
    assert.ok(lane.atll.length >= 30, `${lane.label}: ${lane.atll.length} points`);
    assert.ok(lane.atll.every((a) => Number.isFinite(a) && a < bound), `${lane.label}: a point is not an ATLL below −ln 9`);
    assert.ok(lane.iters.every((it, i) => it % 100 === 0 && lane.sweeps[i] === 12 * it), `${lane.label}: not 12 sweeps per update`);
  }
  assert.match(await page.textContent('article[data-lane-id="3"] .status'), /12 Gibbs sweeps\/update/);
  // The paper's finding (Fig. 1): CD and PCD stay on the plateau near −3.15 while S-DCP and
  // CS-DCP climb past it, at the same number of sweeps.
  const at3000 = Object.fromEntries((await lanes(page)).map((l) => [l.algo, l.atll[l.iters.indexOf(3000)]]));
  for (const algo of ['cd', 'pcd']) assert.ok(Math.abs(at3000[algo] + 3.15) < 0.05, `${algo} at update 3000: ${at3000[algo]}`);
  for (const algo of ['sdcp', 'cs-dcp']) assert.ok(at3000[algo] > Math.max(at3000.cd, at3000.pcd) + 0.2, `${algo} at update 3000: ${at3000[algo]}`);

  // The end point: every lane pauses exactly there, the page stops, nothing moves any more.
  await page.click('#run');
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.status === 'paused'));
  const max = Math.max(...(await lanes(page)).map((l) => l.iter));
  const end = Math.ceil((max + 1000) / 100) * 100;
  await page.fill('#stop', String(end));
  await page.dispatchEvent('#stop', 'change');
  await page.click('#run');
  await page.waitForFunction(() => !window.__rbm.running(), null, { timeout: 60_000 });
  const done = await lanes(page);
  for (const lane of done) {
    assert.equal(lane.status, 'done', lane.label);
    assert.equal(lane.iter, end, lane.label);
    assert.equal(lane.iters.at(-1), end, `${lane.label}: the last point is at the end`);
  }
  assert.equal(await page.textContent('#run'), 'Start');
  assert.match(await page.textContent('article[data-lane-id="0"] .status'), /finished/);
  await page.waitForTimeout(500);
  assert.deepEqual((await lanes(page)).map((l) => l.iter), done.map((l) => l.iter));
  assert.deepEqual(errors, []);
  await page.close();
});

test('the UCD preset offers the text\'s and the code\'s learning rates, and builds one lane per registered algorithm (any other is listed as unavailable)', { timeout: 120_000 }, async () => {
  const { page, errors } = await open();
  await page.selectOption('#preset', 'ucd-bas4');
  const preset = await page.evaluate(() => window.__rbm.catalog().presets.find((p) => p.name === 'ucd-bas4'));
  const registered = await page.evaluate(() => window.__rbm.catalog().algorithms.map((a) => a.name));
  const runnable = preset.lanes.filter((l) => registered.includes(l.algo));
  await page.waitForFunction((n) => {
    const ls = window.__rbm.lanes();
    return ls.length === n && ls.every((l) => l.status === 'ready' && l.atll.length === 1);
  }, runnable.length, { timeout: 30_000 });
  assert.deepEqual((await lanes(page)).map((l) => l.label), runnable.map((l) => l.label));
  const note = await page.textContent('#preset-note');
  assert.match(note, /Qiu, Zhang & Wang 2020/);
  assert.match(note, /τ/);
  const missing = preset.lanes.filter((l) => !registered.includes(l.algo));
  const missingText = await page.textContent('#preset-missing');
  for (const l of missing) assert.ok(missingText.includes(`${l.label} (algorithm '${l.algo}') is not available`), missingText);
  if (!missing.length) assert.equal(missingText, '');
  const rates = await page.$$eval('#preset-rate option', (os) => os.map((o) => o.textContent));
  assert.deepEqual(rates, ["η = 0.1 (the authors' published code)", "η = 0.01 (the paper's text)"]);
  assert.deepEqual(await page.evaluate(() => window.__rbm.settings()), { dataset: 'bas4', hidden: 16, seed: 1, init: 'ucd', every: 100, stop: 10000 });
  // The other rate: every lane's η changes, and the lanes are rebuilt with it.
  await page.selectOption('#preset-rate', '1');
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.inputs.lr === '0.01' && l.status === 'ready' && l.atll.length === 1));
  assert.equal(await page.inputValue('#lane-0-lr'), '0.01');
  assert.ok((await lanes(page)).every((l) => l.inputs.chains === '1000' && Object.keys(l.fieldErrors).length === 0));
  // Back to the first screen.
  await page.selectOption('#preset', '');
  await page.waitForFunction(() => {
    const ls = window.__rbm.lanes();
    return ls.length === 2 && ls.every((l) => l.status === 'ready' && l.atll.length === 1);
  });
  assert.deepEqual((await lanes(page)).map((l) => [l.algo, l.label, l.inputs.lr]), [['cd', null, '0.1'], ['pcd', null, '0.1']]);
  assert.deepEqual(await page.evaluate(() => window.__rbm.settings()), { dataset: 'bas4', hidden: 16, seed: 1, init: 'ucd', every: 100, stop: null });
  assert.equal(await page.textContent('#preset-note'), '');
  assert.equal(await page.textContent('#preset-missing'), '');
  assert.deepEqual(errors, []);
  await page.close();
});
