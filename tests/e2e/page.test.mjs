// End-to-end tests of the built page (www/dist) in headless Chromium: training, pause/reset,
// reproducibility from the URL, a diverging lane, a panicking lane and its restart, refused
// options, the lane picker and the papers' presets. They read the numbers the page exposes
// (window.__rbm and data attributes), never pixels.
//
// Run: npm run test:e2e   (builds the page first), or node --test tests/e2e/page.test.mjs
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
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

/** Every lane has its latest configuration built and is at update 0 with its first point. */
const SETTLED = () => window.__rbm.lanes().every((l) => !l.pending && l.status === 'ready' && l.atll.length === 1);

/** A fresh page (at `url`, default the page's own) with its console errors collected. */
async function open(url = server.url) {
  const page = await browser.context.newPage();
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => window.__rbm?.ready, null, { timeout: 20_000 });
  await page.waitForFunction(SETTLED, null, { timeout: 20_000 });
  return { page, errors };
}

const lanes = (page) => page.evaluate(() => window.__rbm.lanes());
const settings = (page) => page.evaluate(() => window.__rbm.settings());

/** Types into an input and commits it (as leaving the field does). */
async function enter(page, selector, text) {
  await page.fill(selector, text);
  await page.dispatchEvent(selector, 'change');
}

/** Waits until every lane selected by `ids` has made at least `iter` updates. */
async function waitForUpdates(page, iter, ids = null, timeout = 90_000) {
  await page.waitForFunction(
    ([n, ids]) =>
      window.__rbm
        .lanes()
        .filter((l) => !ids || ids.includes(l.id))
        .every((l) => l.iter >= n && l.iters.at(-1) >= n),
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

const FIRST_SETTINGS = { data: 'bas4', hidden: 16, init: 'ucd', seed: 1, every: 100, exact_bits: 20, stop: null };

test('the first screen trains CD-1 and PCD, both curves rise, pause holds, reset replays the same curve', { timeout: 240_000 }, async () => {
  const { page, errors } = await open();
  const start = await lanes(page);
  assert.deepEqual(
    start.map((l) => l.algo),
    ['cd', 'pcd'],
  );
  assert.equal(start[0].atll[0], start[1].atll[0], 'lanes of one seed start from the same model');
  assert.deepEqual(await settings(page), FIRST_SETTINGS);
  assert.match(await page.textContent('#chart-axes'), /average log-likelihood \(exact\)/);
  assert.match(await page.textContent('#chart'), /bound[\s\S]*-3\.379/);
  // The state is in the URL from the start.
  assert.match(page.url(), /#data=bas4&hidden=16&init=ucd&seed=1&every=100&.*&lane=cd:lr=0\.1,k=1,chains=1000&lane=pcd:/);

  await page.click('#run');
  await waitForUpdates(page, 400);
  const run1 = await lanes(page);
  for (const lane of run1) {
    assertRising(lane);
    assert.equal(lane.status, 'running');
    assert.ok(lane.rate > 0);
  }
  assert.equal(await page.textContent('#run'), 'Pause');
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
  assert.deepEqual(
    (await lanes(page)).map((l) => l.iter),
    paused,
  );

  // Reset: back to update 0; the same seed gives the same curve again, point for point.
  await page.click('#reset');
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.iter === 0 && l.atll.length === 1 && l.status === 'ready'));
  assert.deepEqual(
    (await lanes(page)).map((l) => l.atll[0]),
    run1.map((l) => l.atll[0]),
  );
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

test("the unit tests' catalog fixture is the built core's catalog", { timeout: 60_000 }, async () => {
  const { page } = await open();
  const fixture = JSON.parse(readFileSync(new URL('../../www/test/fixtures/catalog.json', import.meta.url), 'utf8'));
  // On a difference: node www/test/fixtures/update-catalog.mjs (after node scripts/build-wasm.mjs).
  assert.deepEqual(await page.evaluate(() => window.__rbm.catalog()), fixture);
  await page.close();
});

test('a page opened from its URL restores its settings and, stopped at the same update, the same curves', { timeout: 240_000 }, async () => {
  const { page, errors } = await open();
  await enter(page, '#seed', '7');
  await page.selectOption('#data', 'bas3');
  await enter(page, '#lane-1-k', '2');
  await enter(page, '#stop', '700');
  await page.waitForFunction(SETTLED);
  // The URL follows on the next frame.
  await page.waitForFunction(() => window.location.hash.includes('&stop=700&'));
  const url = page.url();
  assert.match(url, /[#&]data=bas3&/);
  assert.match(url, /&seed=7&/);
  assert.match(url, /&stop=700&/);
  assert.match(url, /&lane=pcd:lr=0\.1,k=2,chains=1000/);

  const runToTheEnd = async (p) => {
    await p.click('#run');
    await p.waitForFunction(() => window.__rbm.lanes().every((l) => l.status === 'done'), null, { timeout: 90_000 });
    const ls = await lanes(p);
    for (const l of ls) {
      assert.equal(l.iter, 700, l.algo);
      assert.equal(l.iters.at(-1), 700, `${l.algo}: the last point is at the end`);
    }
    return ls;
  };
  const run1 = await runToTheEnd(page);
  assert.equal(page.url(), url, 'running does not change the state');

  const { page: again, errors: errors2 } = await open(url);
  assert.equal(await again.inputValue('#seed'), '7');
  assert.equal(await again.inputValue('#data'), 'bas3');
  assert.equal(await again.inputValue('#lane-1-k'), '2');
  assert.equal(await again.inputValue('#lane-0-k'), '1');
  assert.equal(await again.inputValue('#stop'), '700');
  assert.deepEqual(await settings(again), { ...FIRST_SETTINGS, data: 'bas3', seed: 7, stop: 700 });
  assert.equal(await again.isVisible('#notice'), false);
  const run2 = await runToTheEnd(again);
  for (const [a, b] of run1.map((l, i) => [l, run2[i]])) {
    assert.deepEqual(b.options, a.options);
    assert.deepEqual(b.iters, a.iters);
    assert.deepEqual(b.atll, a.atll, `${a.algo}: not the same curve`);
  }
  assert.notDeepEqual(run1[0].atll, run1[1].atll);
  assert.deepEqual(errors, []);
  assert.deepEqual(errors2, []);
  await page.close();
  await again.close();
});

test('a malformed or unknown link value is ignored with a notice, and nothing from the link becomes HTML', { timeout: 120_000 }, async () => {
  const { page, errors } = await open(`${server.url}#data=nope&hidden=abc&lane=zzz:k=1&foo=%3Cb%3Ebold%3C%2Fb%3E&%E0%A4%A`);
  const notice = await page.textContent('#notice');
  assert.ok(await page.isVisible('#notice'));
  assert.equal(await page.getAttribute('#notice', 'role'), 'status');
  for (const want of [/no such data set/, /hidden units must be a whole number/, /'zzz'.*no such algorithm/, /no such setting/, /not a readable/])
    assert.match(notice, want);
  assert.equal(await page.$('#notice b'), null, "the link's text is shown as text");
  // The default page, and its URL says so.
  assert.deepEqual(
    (await lanes(page)).map((l) => l.algo),
    ['cd', 'pcd'],
  );
  assert.deepEqual(await settings(page), FIRST_SETTINGS);
  assert.match(page.url(), /#data=bas4&hidden=16&/);
  await page.close();

  const label = encodeURIComponent('<img src=x onerror="window.__pwned=1">');
  const { page: p2 } = await open(`${server.url}#lane=cd:label=${label},k=3`);
  assert.match(await p2.textContent('#lane-0-title'), /<img src=x onerror=/);
  assert.equal(await p2.$('article img'), null);
  assert.equal(await p2.evaluate(() => window.__pwned), undefined);
  assert.equal(await p2.inputValue('#lane-0-k'), '3');
  assert.equal(await p2.isVisible('#notice'), false);
  await p2.close();
  assert.deepEqual(errors, []);
});

test('a diverging lane shows a readable message while the other keeps rising', { timeout: 240_000 }, async () => {
  const { page, errors } = await open();
  // A weight decay with a huge rate makes W explode: |1 − η·λ| = 10⁶ − 1 per update.
  await enter(page, '#lane-1-lr', '1000');
  await page.click('article[data-lane-id="1"] details.more-options summary');
  await enter(page, '#lane-1-weight_decay', '1000');
  await page.waitForFunction(SETTLED);
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
  assert.equal(await page.textContent('#run'), 'Pause');
  assert.deepEqual(errors, []);
  await page.close();
});

test("a panic in one lane's core shows its message on that lane while the other keeps running; Restart brings it back", { timeout: 120_000 }, async () => {
  const { page, errors } = await open();
  await page.click('#run');
  await waitForUpdates(page, 200);
  await page.evaluate(() => window.__rbm.crash(1));
  await page.waitForFunction(() => window.__rbm.lanes()[1].status === 'fatal', null, { timeout: 20_000 });
  const broken = (await lanes(page))[1];
  assert.match(broken.message, /deliberate panic \(panicForTest\)/);
  assert.match(broken.message, /internal error at .*lib\.rs:\d+/);
  assert.equal(await page.getAttribute('article[data-lane-id="1"]', 'data-status'), 'fatal');
  assert.match(await page.textContent('article[data-lane-id="1"] .lane-error'), /deliberate panic/);
  assert.match(await page.textContent('article[data-lane-id="1"] .status'), /^broken/);
  assert.ok(await page.isVisible('article[data-lane-id="1"] button.restart'));
  assert.equal(await page.isVisible('article[data-lane-id="0"] button.restart'), false);
  // The other lane keeps making updates.
  const at = (await lanes(page))[0].iter;
  await waitForUpdates(page, at + 300, [0]);
  assert.equal((await lanes(page))[0].status, 'running');

  await page.click('article[data-lane-id="1"] button.restart');
  await page.waitForFunction(() => {
    const l = window.__rbm.lanes()[1];
    return l.status === 'ready' && l.atll.length === 1 && !l.pending && l.message === null;
  });
  assert.equal(await page.isVisible('article[data-lane-id="1"] button.restart'), false);
  assert.equal(await page.isVisible('article[data-lane-id="1"] .lane-error'), false);
  assert.equal((await lanes(page))[0].status, 'running');
  assert.deepEqual(errors, []);
  await page.close();
});

test('bad options are refused next to their input, by the page or by the core, and the lane keeps its settings', { timeout: 120_000 }, async () => {
  const { page, errors } = await open();
  // Refused by the page, from the schema's range …
  await enter(page, '#lane-0-lr', '-1');
  await page.waitForFunction(() => /learning rate η must be a number from 0/.test(document.querySelector('#lane-0-lr-err').textContent));
  assert.equal(await page.getAttribute('#lane-0-lr', 'aria-invalid'), 'true');
  assert.equal(await page.inputValue('#lane-0-lr'), '-1', 'the refused text stays');
  await enter(page, '#lane-0-k', '1.5');
  await page.waitForFunction(() => /whole number/.test(document.querySelector('#lane-0-k-err').textContent));
  await enter(page, '#hidden', '0');
  await page.waitForFunction(() => /hidden units/.test(document.querySelector('#err-hidden').textContent));
  // … and by the core, under the input its error names (not the last one edited): a batch
  // that no longer fits the data set after a switch is shown under the batch size.
  await page.click('article[data-lane-id="1"] details.more-options summary');
  await enter(page, '#lane-1-batch', '20');
  await page.waitForFunction(SETTLED);
  await page.selectOption('#data', 'bas3');
  await page.waitForFunction(() =>
    /batch size must be at most the 14 rows of 'bas3', got 20 \(not applied\)/.test(document.querySelector('#lane-1-batch-err').textContent),
  );
  assert.equal(await page.textContent('#err-data'), '');
  assert.equal((await lanes(page))[1].rejection.key, 'batch');
  // The lanes still train, with their previous, valid settings.
  await page.click('#run');
  await waitForUpdates(page, 400);
  for (const lane of await lanes(page)) assertRising(lane);
  // Fixing an input clears its message.
  await enter(page, '#lane-0-lr', '0.05');
  await page.waitForFunction(() => document.querySelector('#lane-0-lr-err').textContent === '');
  await enter(page, '#lane-1-batch', '');
  await page.waitForFunction(() => document.querySelector('#lane-1-batch-err').textContent === '');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the lane picker offers every algorithm; each lane shows every option its algorithm reads, from the schema', { timeout: 180_000 }, async () => {
  const { page, errors } = await open();
  const catalog = await page.evaluate(() => window.__rbm.catalog());
  const offered = await page.$$eval('#add-algo option', (os) => os.map((o) => o.value));
  assert.deepEqual(
    offered,
    catalog.algorithms.map((a) => a.name),
  );
  for (const algo of catalog.algorithms) {
    await page.selectOption('#add-algo', algo.name);
    await page.click('#add');
    await page.waitForSelector(`article[data-algo="${algo.name}"]`);
    const id = Number(await page.getAttribute(`article[data-algo="${algo.name}"]`, 'data-lane-id'));
    const reads = catalog.options.filter((o) => o.scope === 'lane' && o.algos.includes(algo.name));
    assert.ok(reads.length >= algo.options.length);
    for (const o of reads) {
      assert.ok(await page.$(`#lane-${id}-${o.key}`), `${algo.name}: input ${o.key}`);
      assert.equal(await page.textContent(`label[for="lane-${id}-${o.key}"]`), o.label);
    }
    for (const key of algo.options) assert.ok(await page.isVisible(`#lane-${id}-${key}`), `${algo.name}: ${key} is shown without opening "more options"`);
    for (const o of catalog.options.filter((x) => x.scope === 'shared')) assert.ok(await page.$(`#${o.key}`), `settings input ${o.key}`);
    await page.waitForFunction((id) => window.__rbm.lanes().find((l) => l.id === id)?.status === 'ready', id);
    if (algo.name === 'fpcd') {
      await page.click('#run');
      await waitForUpdates(page, 100, [id]);
      await page.click('#run');
      await page.waitForFunction(() => !window.__rbm.lanes().some((l) => l.status === 'running'));
    }
    await page.click(`article[data-lane-id="${id}"] button.remove`);
    await page.waitForFunction(() => window.__rbm.lanes().length === 2);
  }
  await page.waitForFunction(() => /&lane=cd:[^&]*&lane=pcd:[^&]*$/.test(window.location.hash));
  assert.deepEqual(errors, []);
  await page.close();
});

test("the statistics panel shows UCD's declared statistics by their labels and units", { timeout: 120_000 }, async () => {
  const { page, errors } = await open();
  await page.selectOption('#add-algo', 'ucd');
  await page.click('#add');
  await page.waitForFunction(SETTLED);
  await page.click('#run');
  await waitForUpdates(page, 200, [2]);
  await page.waitForSelector('article[data-lane-id="2"] .stats:not([hidden])');
  const stats = await page.textContent('article[data-lane-id="2"] .stats');
  assert.match(stats, /mean stopping time τ[\d.]+ steps/);
  assert.doesNotMatch(stats, /mean_tau/);
  assert.ok(await page.isHidden('article[data-lane-id="0"] .stats'), 'CD declares no statistics');
  assert.deepEqual(errors, []);
  await page.close();
});

test('another data set and the equal-compute axis', { timeout: 120_000 }, async () => {
  const { page, errors } = await open();
  await page.selectOption('#data', 'shifting-bar');
  await page.waitForFunction(() => /-2\.197/.test(document.querySelector('#chart').textContent));
  await page.waitForFunction(SETTLED);
  await page.check('input[name="axis"][value="sweeps"]');
  await page.waitForFunction(() => /Gibbs sweeps/.test(document.querySelector('#chart-axes').textContent));
  assert.match(page.url(), /&axis=sweeps&/);
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
  await page.waitForFunction(() => window.__rbm.lanes().length === 5);
  await page.waitForFunction(SETTLED, null, { timeout: 30_000 });
  const start = await lanes(page);
  assert.deepEqual(
    start.map((l) => l.label),
    ['CD-12', 'PCD-12', "S-DCP d=3 K'=4", "CS-DCP d=3 K'=4", 'CG-12'],
  );
  assert.deepEqual(
    start.map((l) => l.algo),
    ['cd', 'pcd', 'sdcp', 'cs-dcp', 'cg'],
  );
  assert.deepEqual(
    start.map((l) => l.id),
    [0, 1, 2, 3, 4],
    "lane i uses the preset's stream index i",
  );
  assert.ok(
    start.every((l) => l.options.lr === 0.3),
    "the first of the paper's rates",
  );
  assert.equal(start[0].options.k, 12);
  assert.deepEqual([start[2].options.d, start[2].options.kprime], [3, 4]);
  assert.ok(
    start.every((l) => l.atll[0] === start[0].atll[0]),
    'every lane starts from the same model',
  );
  assert.deepEqual(await settings(page), { data: 'shifting-bar', hidden: 4, init: 'sdcp', seed: 1, every: 100, exact_bits: 20, stop: 50000 });
  assert.equal(await page.inputValue('#data'), 'shifting-bar');
  assert.equal(await page.inputValue('#hidden'), '4');
  assert.equal(await page.evaluate(() => window.__rbm.axis()), 'sweeps', 'equal compute on the x axis');
  assert.match(page.url(), /&preset=sdcp-shifting-bar&rate=0&lane=cd:label=CD-12,lr=0\.3,k=12&/);
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
    assert.ok(
      lane.atll.every((a) => Number.isFinite(a) && a < bound),
      `${lane.label}: a point is not an ATLL below −ln 9`,
    );
    assert.ok(
      lane.iters.every((it, i) => it % 100 === 0 && lane.sweeps[i] === 12 * it),
      `${lane.label}: not 12 sweeps per update`,
    );
  }
  assert.match(await page.textContent('article[data-lane-id="3"] .status'), /12 Gibbs sweeps\/update/);
  // The paper's finding (Fig. 1): CD and PCD stay on the plateau near −3.15 while S-DCP and
  // CS-DCP climb past it, at the same number of sweeps.
  const at3000 = Object.fromEntries((await lanes(page)).map((l) => [l.algo, l.atll[l.iters.indexOf(3000)]]));
  for (const algo of ['cd', 'pcd']) assert.ok(Math.abs(at3000[algo] + 3.15) < 0.05, `${algo} at update 3000: ${at3000[algo]}`);
  for (const algo of ['sdcp', 'cs-dcp']) assert.ok(at3000[algo] > Math.max(at3000.cd, at3000.pcd) + 0.2, `${algo} at update 3000: ${at3000[algo]}`);

  // The end point: every lane stops exactly there, the page stops, nothing moves any more.
  await page.click('#run');
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.status === 'paused'));
  const max = Math.max(...(await lanes(page)).map((l) => l.iter));
  const end = Math.ceil((max + 1000) / 100) * 100;
  await enter(page, '#stop', String(end));
  await page.click('#run');
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.status === 'done'), null, { timeout: 60_000 });
  const done = await lanes(page);
  for (const lane of done) {
    assert.equal(lane.iter, end, lane.label);
    assert.equal(lane.iters.at(-1), end, `${lane.label}: the last point is at the end`);
  }
  assert.equal(await page.evaluate(() => window.__rbm.running()), false);
  assert.equal(await page.textContent('#run'), 'Start');
  assert.match(await page.textContent('article[data-lane-id="0"] .status'), /finished/);
  await page.waitForTimeout(500);
  assert.deepEqual(
    (await lanes(page)).map((l) => l.iter),
    done.map((l) => l.iter),
  );
  assert.deepEqual(errors, []);
  await page.close();
});

test("the UCD preset offers the text's and the code's learning rates, and builds one lane per registered algorithm (any other is listed as unavailable)", {
  timeout: 120_000,
}, async () => {
  const { page, errors } = await open();
  await page.selectOption('#preset', 'ucd-bas4');
  const preset = await page.evaluate(() => window.__rbm.catalog().presets.find((p) => p.name === 'ucd-bas4'));
  const registered = await page.evaluate(() => window.__rbm.catalog().algorithms.map((a) => a.name));
  const runnable = preset.lanes.filter((l) => registered.includes(l.algo));
  await page.waitForFunction((n) => window.__rbm.lanes().length === n, runnable.length);
  await page.waitForFunction(SETTLED, null, { timeout: 30_000 });
  assert.deepEqual(
    (await lanes(page)).map((l) => l.label),
    runnable.map((l) => l.label),
  );
  const note = await page.textContent('#preset-note');
  assert.match(note, /Qiu, Zhang & Wang 2020/);
  assert.match(note, /τ/);
  const missing = preset.lanes.filter((l) => !registered.includes(l.algo));
  const missingText = await page.textContent('#preset-missing');
  for (const l of missing) assert.ok(missingText.includes(`${l.label} (algorithm '${l.algo}') is not available`), missingText);
  if (!missing.length) assert.equal(missingText, '');
  const rates = await page.$$eval('#preset-rate option', (os) => os.map((o) => o.textContent));
  assert.deepEqual(rates, ["η = 0.1 (the authors' published code)", "η = 0.01 (the paper's text)"]);
  assert.deepEqual(await settings(page), { ...FIRST_SETTINGS, stop: 10000 });
  // The other rate: every lane's η changes, and the lanes are rebuilt with it.
  await page.selectOption('#preset-rate', '1');
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.options.lr === 0.01));
  await page.waitForFunction(SETTLED);
  assert.equal(await page.inputValue('#lane-0-lr'), '0.01');
  assert.match(page.url(), /&preset=ucd-bas4&rate=1&/);
  assert.ok((await lanes(page)).every((l) => l.options.chains === 1000 && Object.keys(l.inputErrors).length === 0 && l.rejection === null));
  // Back to the first screen.
  await page.selectOption('#preset', '');
  await page.waitForFunction(() => window.__rbm.lanes().length === 2);
  await page.waitForFunction(SETTLED);
  assert.deepEqual(
    (await lanes(page)).map((l) => [l.algo, l.label, l.options.lr]),
    [
      ['cd', null, 0.1],
      ['pcd', null, 0.1],
    ],
  );
  assert.deepEqual(await settings(page), FIRST_SETTINGS);
  assert.equal(await page.textContent('#preset-note'), '');
  assert.equal(await page.textContent('#preset-missing'), '');
  assert.deepEqual(errors, []);
  await page.close();
});
