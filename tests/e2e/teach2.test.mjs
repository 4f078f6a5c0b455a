// End-to-end tests of the teacher's lane edits (issue 10) on the built page in headless
// Chromium: a downloaded model file loads back into a lane at its update with the same exact
// log-likelihood, a bad file is refused with a message while the lane keeps its state, a live
// learning-rate edit keeps the curve, and an edit that needs a rebuild asks first on a long run.
//
// Run: npm run test:e2e   (builds the page first), or node --test tests/e2e/teach2.test.mjs
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { enter, lanes, openPage, startServer } from './setup.mjs';

let server;
let browser;
let close;
let dir;

before(async () => {
  ({ server, browser, close } = await startServer('/course/rbm/'));
  dir = mkdtempSync(join(tmpdir(), 'rbm-teach2-'));
});

after(async () => {
  await close?.();
  rmSync(dir, { recursive: true, force: true });
});

const card = (id) => `article[data-lane-id="${id}"]`;

/** Clicks lane `id`'s download button and returns the file's path and parsed JSON. */
async function download(page, id, name) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(`${card(id)} .panel-download button.export`)]);
  const path = join(dir, name);
  await file.saveAs(path);
  return { path, json: JSON.parse(readFileSync(path, 'utf8')) };
}

test('download → load gives the same exact log-likelihood at the same update; a bad file is refused and the lane keeps its state', {
  timeout: 180_000,
}, async () => {
  const { page, errors } = await openPage(browser, `${server.url}#data=bas4&every=20`);
  await enter(page, '#stop', '200');
  await page.click('#run');
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.status === 'done' && l.iter === 200), null, { timeout: 120_000 });
  const [, pcd] = await lanes(page);
  assert.equal(pcd.iters.at(-1), 200);
  const atll200 = pcd.atll.at(-1);
  const { path, json } = await download(page, 1, 'pcd.json');
  assert.equal(json.training.iter, 200);
  assert.equal(json.training.data, 'bas4');
  assert.equal(json.training.config.algo, 'pcd');
  assert.equal(json.visible * json.hidden, json.w.length);

  // Back to update 0, then the file: the lane continues at update 200 from the same model.
  await page.click('#reset');
  await page.waitForFunction(() => window.__rbm.lanes()[1].iter === 0 && window.__rbm.lanes()[1].atll.length === 1);
  await page.setInputFiles(`#lane-1-model-file`, path);
  await page.waitForFunction(() => window.__rbm.lanes()[1].modelFile?.state === 'loaded' && window.__rbm.lanes()[1].iters[0] === 200, null, {
    timeout: 20_000,
  });
  let loaded = (await lanes(page))[1];
  assert.equal(loaded.atll[0], atll200, 'the same exact ATLL, bit for bit');
  await page.waitForFunction((sel) => /continues 'pcd\.json' from update 200/.test(document.querySelector(sel)?.textContent), `${card(1)} .model-file-line`, {
    timeout: 10_000,
  });
  // The CD lane loads the PCD model too (its own options stay): the same ATLL.
  await page.setInputFiles(`#lane-0-model-file`, path);
  await page.waitForFunction(() => window.__rbm.lanes()[0].modelFile?.state === 'loaded' && window.__rbm.lanes()[0].atll.length === 1, null, {
    timeout: 20_000,
  });
  const cd = (await lanes(page))[0];
  assert.deepEqual([cd.iters[0], cd.atll[0]], [200, atll200]);

  // It trains on from there once the end point allows it.
  await enter(page, '#stop', '300');
  await page.click('#run');
  await page.waitForFunction(() => window.__rbm.lanes()[1].iter === 300, null, { timeout: 60_000 });
  loaded = (await lanes(page))[1];
  assert.equal(loaded.iters[0], 200);
  assert.equal(loaded.iters.at(-1), 300);

  // A bad file: a clear message, and the lane is as it was (same generation, curve, update).
  const before = (await lanes(page))[1];
  await page.setInputFiles(`#lane-1-model-file`, {
    name: 'broken.json',
    mimeType: 'application/json',
    buffer: Buffer.from('{"visible": 16, "hidden": 16, "w": [0.1'),
  });
  await page.waitForFunction(() => window.__rbm.lanes()[1].modelFile?.state === 'refused', null, { timeout: 20_000 });
  const after = (await lanes(page))[1];
  assert.match(after.modelFile.message, /^'broken\.json' was not loaded: malformed input: model file: /);
  // The card shows it from its next frame on.
  await page.waitForFunction(([sel, text]) => document.querySelector(sel)?.textContent === text, [`${card(1)} .model-file-line`, after.modelFile.message], {
    timeout: 10_000,
  });
  assert.deepEqual([after.gen, after.iter, after.iters, after.atll], [before.gen, before.iter, before.iters, before.atll]);
  // A file of another data set's width is refused by the core, naming the mismatch.
  await page.setInputFiles(`#lane-1-model-file`, {
    name: 'nine.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify({ visible: 9, hidden: 2, w: Array(18).fill(0), b: Array(9).fill(0), c: [0, 0] })),
  });
  await page.waitForFunction(() => /nine\.json/.test(window.__rbm.lanes()[1].modelFile?.message ?? ''), null, { timeout: 20_000 });
  assert.match((await lanes(page))[1].modelFile.message, /the model has 9 visible units but 'bas4' has 16/);
  assert.equal((await lanes(page))[1].gen, before.gen);
  assert.deepEqual(errors, []);
});

test("a live learning-rate edit keeps the running lane's curve and changes its η; a rebuild asks first on a long run", { timeout: 180_000 }, async () => {
  const { page, errors } = await openPage(browser, `${server.url}#data=bas4&every=20`);
  const dialogs = [];
  let accept = false;
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void (accept ? d.accept() : d.dismiss());
  });
  await page.click('#run');
  await page.waitForFunction(() => window.__rbm.lanes()[1].atll.length >= 5, null, { timeout: 60_000 });
  const before = (await lanes(page))[1];
  await enter(page, '#lane-1-lr', '0.02');
  await page.waitForFunction((n) => window.__rbm.lanes()[1].atll.length >= n + 5, before.atll.length, { timeout: 60_000 });
  const after = (await lanes(page))[1];
  assert.equal(after.gen, before.gen, 'not rebuilt');
  assert.equal(after.options.lr, 0.02);
  assert.equal(after.status, 'running');
  assert.deepEqual(after.atll.slice(0, before.atll.length), before.atll, "the curve's points stay");
  // The address is rewritten at the next drawn frame, which a loaded machine can hold back.
  await page.waitForFunction(() => /lr=[^&]*0\.02/.test(window.location.hash), null, { timeout: 5_000 }).catch(() => {});
  assert.match(page.url(), /lr=[^&]*0\.02/);
  assert.deepEqual(dialogs, []);
  // The core's lane trains with the new η: its model file says so.
  const { json } = await download(page, 1, 'live.json');
  assert.equal(json.training.config.lr, 0.02);
  assert.ok(json.training.iter > before.iter);

  // After 10 s of training, an edit that rebuilds the lane asks first: declined, nothing moves.
  await page.waitForFunction(() => window.__rbm.lanes()[1].elapsed >= 10_000, null, { timeout: 120_000 });
  await enter(page, '#lane-1-k', '2');
  await page.waitForTimeout(200);
  assert.equal(dialogs.length, 1);
  assert.match(dialogs[0], /^Changing Gibbs sweeps k rebuilds lane 1 \(pcd\) \([\d,]+ updates\): its curve starts again from update 0\. Continue\?$/);
  let lane = (await lanes(page))[1];
  assert.deepEqual([lane.gen, lane.options.k], [after.gen, 1]);
  assert.equal(await page.inputValue('#lane-1-k'), '1', 'the input shows the value in use again');
  // `r` asks too, naming every lane past 10 s of training (both: they started together, but a
  // loaded machine may hold one back a moment).
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.elapsed >= 10_000), null, { timeout: 60_000 });
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press('r');
  await page.waitForTimeout(200);
  assert.equal(dialogs.length, 2);
  assert.match(dialogs[1], /^Reset rebuilds lane 0 \(cd\) .*lane 1 \(pcd\)/);
  assert.ok((await lanes(page))[1].iter > 0);
  // Accepted, the lane is rebuilt with k = 2.
  accept = true;
  await enter(page, '#lane-1-k', '2');
  await page.waitForFunction((g) => window.__rbm.lanes()[1].gen > g, after.gen, { timeout: 20_000 });
  lane = (await lanes(page))[1];
  assert.equal(lane.options.k, 2);
  assert.equal(dialogs.length, 3);
  assert.deepEqual(errors, []);
});

test('the chart: a zoom stays while the lanes train, a tap gives the readout, and an exploding lane runs off the bottom, marked', {
  timeout: 120_000,
}, async () => {
  const { page, errors } = await openPage(browser, `${server.url}#data=bas4&every=20`, { width: 390, height: 844 });
  await page.click('#run');
  await page.waitForFunction(() => window.__rbm.lanes()[0].atll.length >= 10, null, { timeout: 60_000 });
  assert.match(await page.textContent('#chart .zoom-hint'), /Drag across the chart to zoom in/);
  // Drag across the middle of the plot: the chart zooms to it and keeps it while points come in.
  const over = await page.$('#chart .u-over');
  await over.scrollIntoViewIfNeeded();
  const box = await over.boundingBox();
  await page.mouse.move(box.x + box.width * 0.2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  const zoom = await page.getAttribute('#chart', 'data-zoom');
  assert.ok(zoom, 'zoomed');
  assert.ok(await page.isVisible('#chart .unzoom'));
  const n = (await lanes(page))[0].atll.length;
  await page.waitForFunction((k) => window.__rbm.lanes()[0].atll.length >= k + 5, n, { timeout: 60_000 });
  assert.equal(await page.getAttribute('#chart', 'data-zoom'), zoom, 'the zoom stays while training');
  await page.click('#chart .unzoom');
  assert.equal(await page.getAttribute('#chart', 'data-zoom'), null);

  // A tap on the chart (a phone has no hover) shows every lane's value there.
  assert.match(await page.textContent('#chart .readout-x'), /^latest$/);
  await page.evaluate(() => {
    const el = document.querySelector('#chart .u-over');
    const r = el.getBoundingClientRect();
    const t = new Touch({ identifier: 1, target: el, clientX: r.left + r.width * 0.3, clientY: r.top + r.height / 2 });
    el.dispatchEvent(new TouchEvent('touchstart', { touches: [t], changedTouches: [t], bubbles: true }));
  });
  assert.match(await page.textContent('#chart .readout-x'), /^parameter updates: \d[\d\u202f]*$/);

  // η = 10⁹ live: the lane explodes, the axis keeps the other readable and says who is below.
  await enter(page, '#lane-1-lr', '1e9');
  await page.waitForFunction(() => !document.querySelector('#chart .below-chart').hidden, null, { timeout: 60_000 });
  assert.match(await page.textContent('#chart .below-chart'), /^▼ Below the chart: PCD-k \(lane 1\) \(down to −[\d.]+·10[⁰¹²³⁴⁵⁶⁷⁸⁹]+\)/);
  // The chart's accessible name says what it plots, on the axis shown.
  assert.equal(await page.getAttribute('#chart', 'aria-label'), 'Average log-likelihood of each lane against parameter updates');
  await page.check('input[name="axis"][value="sweeps"]');
  // The page draws the new axis in its next animation frame (the lanes keep running, so wait for
  // the label itself, not for a moment with nothing left to draw).
  await page.waitForFunction(() => /Gibbs sweeps/.test(document.querySelector('#chart').getAttribute('aria-label')));
  assert.equal(await page.getAttribute('#chart', 'aria-label'), 'Average log-likelihood of each lane against Gibbs sweeps per chain (equal compute)');
  assert.equal(await page.getAttribute('#chart', 'aria-describedby'), 'chart-axes');
  assert.deepEqual(errors, []);
});

test('slow motion: Step pauses a lane, makes one update and shows its phases with numbered captions; Continue runs it again', {
  timeout: 120_000,
}, async () => {
  const { page, errors } = await openPage(browser, `${server.url}#data=bas4&every=1`);
  const step = `${card(1)} .panel-slowmo button.step`;
  // From update 0: three steps are updates 1, 2 and 3, each with its point on the curve.
  for (let i = 1; i <= 3; i++) {
    await page.click(step);
    await page.waitForFunction((n) => window.__rbm.lanes()[1].traced === n, i, { timeout: 20_000 });
  }
  let lane = (await lanes(page))[1];
  assert.deepEqual([lane.iter, lane.status, lane.iters], [3, 'paused', [0, 1, 2, 3]]);
  assert.equal((await lanes(page))[0].iter, 0, 'the other lane does not move');
  // The panel draws the trace in the next frame after the lane has it.
  await page.waitForFunction(
    (sel) => /Update 3 is done\.$/.test([...document.querySelectorAll(sel)].at(-1)?.textContent ?? ''),
    `${card(1)} .phases figcaption`,
  );
  const captions = await page.$$eval(`${card(1)} .phases figcaption`, (els) => els.map((e) => e.textContent));
  assert.deepEqual(
    captions.map((c) => c.slice(0, 1)),
    ['①', '②', '③', '④', '⑤'],
  );
  assert.match(captions[0], /the first 8 training rows/);
  assert.match(captions[2], /the first 8 chains at the start of the negative phase \(top row\) and after its Gibbs sweep \(one row per sweep\)/);
  assert.match(captions[4], /Update 3 is done\.$/);
  for (const i of [1, 2, 3, 4, 5]) {
    const size = await page.$eval(`${card(1)} canvas.phase-${i}`, (c) => [c.width, c.height]);
    assert.ok(size[0] > 0 && size[1] > 0, `phase ${i} drawn`);
  }
  // A running lane pauses for its step; Continue runs it at full speed again.
  await page.click(`${card(1)} .panel-slowmo button.resume`);
  await page.waitForFunction(() => window.__rbm.lanes()[1].status === 'running' && window.__rbm.lanes()[1].iter > 20, null, { timeout: 20_000 });
  await page.click(step);
  await page.waitForFunction(() => window.__rbm.lanes()[1].status === 'paused' && window.__rbm.lanes()[1].traced !== 3, null, { timeout: 20_000 });
  lane = (await lanes(page))[1];
  assert.equal(lane.traced, lane.iter);
  assert.equal(lane.iters.at(-1), lane.iter);
  assert.deepEqual(errors, []);
});
