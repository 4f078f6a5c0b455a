// End-to-end tests of the classroom features (issue 10) on the built page in headless
// Chromium: links that hide controls and panels (kept after a reload), the Share dialog and
// its <iframe> snippet pasted into a course page on another origin, the compact embed in an
// 800×500 frame, the explanations, and no request to any other origin.
//
// Run: npm run test:e2e   (builds the page first), or node --test tests/e2e/classroom.test.mjs
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { serve } from './server.mjs';
import { openPage, SETTLED, startServer } from './setup.mjs';

let server;
let browser;
let close;

before(async () => {
  ({ server, browser, close } = await startServer('/course/rbm/'));
});

after(async () => {
  await close?.();
});

/** Every lane has its configuration built (and is at update 0 unless it trains). */
const SETTLED_OR_RUNNING = () => window.__rbm.lanes().every((l) => !l.pending && l.atll.length >= 1);

/** A fresh page at `url` with its console errors and every request it makes collected. */
const open = (url = server.url, viewport = null) => openPage(browser, url, viewport);

/** Every request went to `origins` (or stayed in the page: data:, blob:). */
function assertOwnOrigin(requests, origins) {
  const away = requests.filter((u) => !/^(data|blob):/.test(u) && !origins.some((o) => u.startsWith(o)));
  assert.deepEqual(away, [], 'a request left for another origin');
}

/** The ids (or part names) of the controls a student can see and use to change the page (the
 * glossary and a chart's PNG download change nothing). */
const usableControls = (page) =>
  page.$$eval(
    '#controls input, #controls select, #controls button, .lane input, .lane select, .lane button:not(.tip):not(.term):not(.png-export), .tools button:not(#glossary-button)',
    (els) => els.filter((e) => e.checkVisibility() && !e.disabled).map((e) => e.id || e.closest('[data-part]')?.dataset.part || e.className),
  );

/** Opens guided tour `id` from the header's menu (one entry per file in www/tours). */
async function startTour(page, id) {
  await page.click('#tour-button');
  await page.click(`#tour-menu button[data-tour="${id}"]`);
  await page.waitForSelector('#tour:not([hidden])');
}

test('a link hides the controls and panels it names, and they stay hidden after a reload', { timeout: 120_000 }, async () => {
  const origin = new URL(server.url).origin;
  const { page, errors, requests } = await open(`${server.url}#hide=seed,lr,filters,add&data=bas4`);
  const check = async () => {
    assert.equal(await page.isVisible('#seed'), false, 'seed hidden');
    assert.equal(await page.isVisible('#lane-0-lr'), false, 'learning rate hidden');
    assert.equal(await page.isVisible('#lane-1-lr'), false);
    assert.equal(await page.isVisible('article[data-lane-id="0"] [data-part="filters"]'), false, 'filters hidden');
    assert.equal(await page.isVisible('#add'), false);
    // The rest stays.
    for (const sel of ['#hidden', '#lane-0-k', '#run', '#reset', '#chart', 'article[data-lane-id="0"] [data-part="distribution"]'])
      assert.ok(await page.isVisible(sel), sel);
    assert.match(page.url(), /&hide=seed,lr,filters,add$/);
  };
  await check();
  // The state travels in the hash; a change of the page keeps the hide list.
  await page.fill('#hidden', '12');
  await page.dispatchEvent('#hidden', 'change');
  await page.waitForFunction(() => window.location.hash.includes('hidden=12&'));
  assert.match(page.url(), /hidden=12&.*&hide=seed,lr,filters,add$/);
  await page.reload();
  await page.waitForFunction(() => window.__rbm?.ready);
  await page.waitForFunction(SETTLED);
  await check();
  assert.equal(await page.inputValue('#hidden'), '12');
  // A hidden Start takes its key away too.
  const { page: p2 } = await open(`${server.url}#hide=run,reset`);
  assert.equal(await p2.isVisible('#run'), false);
  await p2.keyboard.press('s');
  await p2.waitForTimeout(500);
  assert.equal(await p2.evaluate(() => window.__rbm.running()), false);
  // TF Playground's convention reads the same.
  const { page: p3 } = await open(`${server.url}#seed_hide=true`);
  assert.equal(await p3.isVisible('#seed'), false);
  assert.match(p3.url(), /&hide=seed$/);
  assertOwnOrigin(requests, [origin]);
  assert.deepEqual(errors, []);
  await Promise.all([page.close(), p2.close(), p3.close()]);
});

test('Share builds a link with only Start and the learning rate; its <iframe> works in a course page on another origin', { timeout: 240_000 }, async () => {
  const origin = new URL(server.url).origin;
  const { page, errors } = await open();
  await page.selectOption('#preset', 'ucd-bas4');
  await page.waitForFunction(SETTLED);
  await page.click('#share-button');
  assert.ok(await page.isVisible('#share'));
  await page.click('#share >> text=Only Start and the learning rate');
  const link = await page.inputValue('#share-link');
  const iframe = await page.inputValue('#share-iframe');
  assert.ok(link.startsWith(`${server.url}#data=bas4&`), link);
  assert.match(link, /preset=ucd-bas4/);
  assert.match(link, /&hide=[^&]*reset[^&]*$/);
  assert.doesNotMatch(link.split('&hide=')[1], /(^|,)(run|lr)(,|$)/);
  assert.doesNotMatch(link, /trials=\d/);
  assert.match(iframe, /^<iframe src="[^"]+&amp;embed=1" width="800" height="500" [^>]*title="[^"]+"[^>]*><\/iframe>$/);
  // Copy: the clipboard gets the link (or the field is selected for Ctrl+C).
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  await page.click('#copy-link');
  await page.waitForFunction(() => /copied|selected/.test(document.querySelector('#share .share-status').textContent));
  if (/copied/.test(await page.textContent('#share .share-status'))) assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
  await page.click('#share .close');

  // The link: the UCD experiment, and a student sees only Start and the learning rate.
  const { page: student, errors: e2 } = await open(link);
  assert.equal((await student.evaluate(() => window.__rbm.state())).preset, 'ucd-bas4');
  const usable = await usableControls(student);
  assert.ok(usable.includes('run'), usable.join(' '));
  assert.deepEqual(
    usable.filter((u) => u !== 'run'),
    ['lane-0-lr', 'lane-1-lr', 'lane-2-lr'],
  );
  assert.ok(await student.isVisible('#chart'));

  // The snippet in a course page served from elsewhere: the chart is there and trains.
  const course = mkdtempSync(join(tmpdir(), 'rbm-course-'));
  writeFileSync(join(course, 'index.html'), `<!doctype html><html><body><h1>Lecture 7</h1>\n${iframe}\n</body></html>`);
  const courseServer = await serve(course, '/');
  try {
    const host = await browser.context.newPage();
    const requests = [];
    host.on('request', (r) => requests.push(r.url()));
    await host.goto(courseServer.url);
    const frame = await (await host.waitForSelector('iframe')).contentFrame();
    await frame.waitForFunction(() => window.__rbm?.ready, null, { timeout: 20_000 });
    await frame.waitForFunction(SETTLED, null, { timeout: 20_000 });
    const box = await frame.$eval('#chart', (c) => c.getBoundingClientRect().toJSON());
    assert.ok(box.bottom <= 500 && box.height > 100, `the chart is inside the 800×500 frame: ${JSON.stringify(box)}`);
    // The "Only …" set gives one live run per lane (issue 27: students saw every lane frozen at
    // update 0 while 75 trials ran): Start moves the lanes at once, and no study starts.
    await frame.click('#run');
    await frame.waitForFunction(() => window.__rbm.lanes().every((l) => l.iter >= 200), null, { timeout: 60_000 });
    assert.equal(await frame.evaluate(() => window.__rbm.study()), null);
    assert.ok(await frame.isVisible('input[id$="-lr"]'));
    assert.equal(await frame.isVisible('#seed'), false);
    assertOwnOrigin(requests, [origin, new URL(courseServer.url).origin]);
    await host.close();
  } finally {
    await courseServer.close();
    rmSync(course, { recursive: true, force: true });
  }
  assert.deepEqual(errors, []);
  assert.deepEqual(e2, []);
  await Promise.all([page.close(), student.close()]);
});

test('embed=1 in an 800×500 viewport: a small header, Start/Pause/Reset, the chart above the fold, the lanes', { timeout: 120_000 }, async () => {
  const { page, errors } = await open(`${server.url}#embed=1`, { width: 800, height: 500 });
  assert.ok(await page.isVisible('.embed-head'));
  assert.equal(await page.isVisible('header.top'), false);
  const chart = await page.$eval('#chart', (c) => c.getBoundingClientRect().toJSON());
  assert.ok(chart.top >= 0 && chart.bottom <= 500 && chart.height >= 150, `chart above the fold: ${JSON.stringify(chart)}`);
  for (const sel of ['#run', '#reset']) {
    const b = await page.$eval(sel, (e) => e.getBoundingClientRect().bottom);
    assert.ok(b <= 500, sel);
  }
  assert.deepEqual((await usableControls(page)).sort(), ['reset', 'run']);
  assert.ok(await page.isVisible('article[data-lane-id="0"]'));
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 800, 'no horizontal scrolling');
  // The header links to the full page: the same experiment, relative, in a new tab.
  const href = await page.getAttribute('#full-page', 'href');
  assert.match(href, /^#data=bas4&.*lane=pcd:[^&]*$/);
  assert.equal(await page.getAttribute('#full-page', 'target'), '_blank');
  await page.click('#run');
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.iter >= 200), null, { timeout: 60_000 });
  await page.click('#run');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the first screen explains itself before anything runs; tips open on a tap; terms open the glossary', { timeout: 120_000 }, async () => {
  const { page, errors } = await open();
  const intro = await page.textContent('#intro');
  assert.match(intro, /^Press Start: CD-1 and PCD .*\. The UCD paper reports that CD-1’s log-likelihood rises, then falls back/);
  assert.ok(await page.isVisible('#intro'));
  assert.equal(await page.evaluate(() => window.__rbm.running()), false);
  // A "?" beside a setting shows its text in a popover when tapped.
  const tip = page.locator('[data-part="seed"] .tip');
  assert.match(await tip.getAttribute('title'), /seed/);
  await tip.click();
  const pop = page.locator('[data-part="seed"] .tip-pop');
  assert.ok(await pop.isVisible());
  assert.match(await pop.textContent(), /same seed gives the same numbers/);
  await page.keyboard.press('Escape');
  // Every panel that explains itself has a "?" beside it.
  assert.ok((await page.$$('article[data-lane-id="0"] .panel > .tip-wrap')).length >= 4);
  // A term in the chart's axis sentence opens the glossary at that term.
  await page.click('#chart-axes .term[data-term="bound"]');
  assert.ok(await page.isVisible('#glossary'));
  assert.equal(await page.evaluate(() => document.activeElement.id), 'term-bound');
  assert.match(await page.textContent('#glossary'), /Gibbs sweep.*τ \(stopping time\)/s);
  await page.click('#glossary .close');
  assert.equal(await page.isVisible('#glossary'), false);
  // The skip link jumps without changing the experiment.
  const before = await page.evaluate(() => window.__rbm.state());
  await page.focus('.skip');
  await page.keyboard.press('Enter');
  await page.waitForTimeout(300);
  assert.deepEqual(await page.evaluate(() => window.__rbm.state()), before);
  assert.deepEqual(await page.evaluate(() => window.__rbm.notices()), []);
  assert.deepEqual(errors, []);
  await page.close();
});

test("the UCD paper's guided tour runs to its end: each step sets the page up and outlines what it talks about", { timeout: 240_000 }, async () => {
  const { page, errors } = await open();
  await page.click('#tour-button');
  // One tour per paper, listed by their titles.
  const listed = await page.$$eval('#tour-menu button', (bs) => bs.map((b) => b.dataset.tour).sort());
  assert.deepEqual(listed, ['pcd-mnist-25', 'rates-fpcd-samplers', 'sdcp-shifting-bar', 'ucd-bas4']);
  await page.click('#tour-menu button[data-tour="ucd-bas4"]');
  await page.waitForSelector('#tour:not([hidden])');
  const step = async () => ({
    count: await page.textContent('#tour-count'),
    text: await page.textContent('#tour-text'),
    target: await page.$eval('.tour-target', (e) => (e.checkVisibility() ? e.dataset.part : null)).catch(() => null),
    state: await page.evaluate(() => window.__rbm.state()),
    running: await page.evaluate(() => window.__rbm.running()),
    hash: await page.evaluate(() => window.location.hash),
  });
  const seen = [];
  let s = await step();
  const total = Number(s.count.match(/of (\d+)/)[1]);
  assert.ok(total >= 5);
  for (let i = 1; ; i++) {
    await page.waitForFunction(SETTLED_OR_RUNNING);
    s = await step();
    assert.equal(s.count, `Step ${i} of ${total}`);
    assert.ok(s.text.length > 40, s.text);
    assert.ok(s.target, `step ${i} outlines a visible element`);
    assert.match(s.hash, /&tour=ucd-bas4$/);
    if (i === total) {
      // The last step pauses (the lanes' workers say so a moment later).
      await page.waitForFunction(() => !window.__rbm.running(), null, { timeout: 10_000 });
      s = await step();
    }
    seen.push(s);
    if (i === total) break;
    await page.click('#tour-next');
  }
  // Step 1 is the paper's experiment; training starts on the way and the lanes keep their
  // curves while later steps point at them; the axis step switches the axis only.
  assert.equal(seen[0].state.preset, 'ucd-bas4');
  assert.equal(seen[0].target, 'preset');
  assert.deepEqual(
    seen[0].state.lanes.map((l) => l.label),
    ['CD-1', 'PCD-1', 'UCD'],
  );
  const started = seen.findIndex((x) => x.running);
  assert.ok(started > 0, 'a step starts training');
  const iters = await page.evaluate(() => window.__rbm.lanes().map((l) => l.iter));
  assert.ok(
    iters.every((n) => n > 0),
    `the lanes kept training through the later steps: ${iters}`,
  );
  assert.ok(seen.some((x) => x.target === 'statistics'));
  assert.equal(seen.at(-1).state.axis, 'iter');
  assert.equal(seen.at(-1).running, false, 'the last step pauses');
  assert.equal(await page.textContent('#tour-next'), 'Finish');
  await page.click('#tour-next');
  assert.equal(await page.isVisible('#tour'), false);
  assert.equal(await page.$('.tour-target'), null);
  await page.waitForFunction(() => !window.location.hash.includes('tour='));
  // A link opens the tour at its first step.
  const { page: p2 } = await open(`${server.url}#tour=ucd-bas4`);
  assert.ok(await p2.isVisible('#tour'));
  assert.equal(await p2.textContent('#tour-count'), `Step 1 of ${total}`);
  assert.equal((await p2.evaluate(() => window.__rbm.state())).preset, 'ucd-bas4');
  assert.deepEqual(errors, []);
  await Promise.all([page.close(), p2.close()]);
});

test('on a phone (390×844) nothing scrolls sideways, and a student follows the UCD tour to its end', { timeout: 240_000 }, async () => {
  const { page, errors } = await open(server.url, { width: 390, height: 844 });
  const sideways = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.equal(await sideways(), 0, 'the first screen');
  await startTour(page, 'ucd-bas4');
  const total = Number((await page.textContent('#tour-count')).match(/of (\d+)/)[1]);
  for (let i = 1; i <= total; i++) {
    assert.equal(await page.textContent('#tour-count'), `Step ${i} of ${total}`);
    // The outlined element comes into view above the tour's card (after the smooth scroll).
    await page.waitForFunction(
      () => {
        const t = document.querySelector('.tour-target')?.getBoundingClientRect();
        const card = document.querySelector('#tour').getBoundingClientRect();
        return t && t.top >= -1 && t.top < card.top;
      },
      null,
      { timeout: 5_000 },
    );
    const card = await page.$eval('#tour', (c) => c.getBoundingClientRect().toJSON());
    assert.ok(card.left >= 0 && card.right <= 390 && card.bottom <= 844, `the card fits the screen: ${JSON.stringify(card)}`);
    assert.equal(await sideways(), 0, `step ${i}`);
    await page.click('#tour-next');
  }
  assert.equal(await page.isVisible('#tour'), false);
  // The lanes trained on the way, and their cards fit the screen too.
  const lanes = await page.evaluate(() => window.__rbm.lanes());
  assert.ok(lanes.every((l) => l.iter > 0));
  await page.locator('article[data-lane-id="2"]').scrollIntoViewIfNeeded();
  assert.equal(await sideways(), 0, 'the lanes');
  // The Share dialog and the glossary fit as well.
  await page.click('#share-button');
  assert.equal(await sideways(), 0, 'the Share dialog');
  const dialog = await page.$eval('#share', (d) => d.getBoundingClientRect().toJSON());
  assert.ok(dialog.left >= 0 && dialog.right <= 390);
  await page.click('#share .close');
  assert.deepEqual(errors, []);
  await page.close();
});

test('patterns drawn on a grid and pasted become a data set that trains with an exact curve', { timeout: 180_000 }, async () => {
  const { page, errors } = await open();
  await page.click('#patterns-button');
  assert.ok(await page.isVisible('#patterns'));
  const cells = page.locator('#pattern-grid .cell');
  assert.equal(await cells.count(), 16);
  // A horizontal bar (top row), then a vertical one (left column), drawn by tapping cells.
  for (const i of [0, 1, 2, 3]) await cells.nth(i).click();
  await page.click('#pattern-add');
  await page.click('#pattern-clear');
  for (const i of [0, 4, 8, 12]) await cells.nth(i).click();
  await page.click('#pattern-add');
  assert.equal(await page.inputValue('#pattern-lines'), '1111000000000000\n1000100010001000\n');
  // A typo is named with its line; then the other bars are pasted.
  await page.fill('#pattern-lines', `${await page.inputValue('#pattern-lines')}00001111000x0000\n`);
  await page.dispatchEvent('#pattern-lines', 'input');
  assert.match(await page.textContent('#pattern-error'), /line 3: unexpected character 'x'/);
  const bars = ['0000111100000000', '0000000011110000', '0000000000001111', '0100010001000100', '0010001000100010', '0001000100010001'];
  await page.fill('#pattern-lines', `1111000000000000\n1000100010001000\n${bars.join('\n')}\n`);
  await page.dispatchEvent('#pattern-lines', 'input');
  assert.equal(await page.textContent('#pattern-error'), '');
  assert.match(await page.textContent('#pattern-count'), /8 patterns of 16 units, 8 distinct/);
  await page.fill('#pattern-name', 'bars');
  await page.click('#pattern-train');
  assert.equal(await page.isVisible('#patterns'), false);
  await page.waitForFunction(() => window.__rbm.settings().data === 'bars');
  await page.waitForFunction(SETTLED, null, { timeout: 30_000 });
  assert.match(await page.textContent('#data option[value="bars"]'), /bars: your 8 patterns of 4×4 \(8 distinct\)/);
  // The bound of 8 equally frequent patterns is −log 8.
  assert.match(await page.textContent('#chart'), new RegExp(`bound[\\s\\S]*${(-Math.log(8)).toFixed(3).replace('-', '−')}`));
  await page.click('#run');
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.iter >= 500 && l.atll.length >= 5), null, { timeout: 90_000 });
  await page.click('#run');
  for (const l of await page.evaluate(() => window.__rbm.lanes())) {
    assert.ok(l.atll.every(Number.isFinite));
    assert.ok(l.atll.at(-1) > l.atll[0] + 0.5, `${l.algo}: the exact curve rises (${l.atll[0]} → ${l.atll.at(-1)})`);
    assert.ok(l.atll.at(-1) <= -Math.log(8) + 1e-9, 'never above the bound');
  }
  // The model distribution over the 8 patterns is drawn.
  const dist = page.locator('article[data-lane-id="0"] canvas.dist');
  await dist.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => /8 distinct training patterns/.test(document.querySelector('article[data-lane-id="0"] .dist-caption')?.textContent ?? ''));
  assert.deepEqual(errors, []);
  await page.close();
});

/** axe-core's serious and critical violations on the page as it is (id, and where). */
async function seriousViolations(page) {
  await page.addScriptTag({ path: fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url)) });
  const found = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations);
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
}

test('an automated accessibility check (axe-core) finds no serious violation: first screen, training, dialogs, tour, embed, phone', {
  timeout: 180_000,
}, async () => {
  const { page, errors } = await open();
  assert.deepEqual(await seriousViolations(page), [], 'the first screen');
  await page.click('#run');
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.atll.length >= 3), null, { timeout: 60_000 });
  await page.click('#run');
  await page.locator('article[data-lane-id="1"]').scrollIntoViewIfNeeded();
  assert.deepEqual(await seriousViolations(page), [], 'after training');
  for (const [button, dialog] of [
    ['#share-button', '#share'],
    ['#glossary-button', '#glossary'],
    ['#patterns-button', '#patterns'],
  ]) {
    await page.click(button);
    assert.deepEqual(await seriousViolations(page), [], dialog);
    await page.click(`${dialog} .close`);
  }
  await page.click('#tour-button');
  assert.deepEqual(await seriousViolations(page), [], 'the tours menu');
  await page.click('#tour-menu button[data-tour="ucd-bas4"]');
  await page.waitForSelector('#tour:not([hidden])');
  assert.deepEqual(await seriousViolations(page), [], 'the tour');
  const { page: embed } = await open(`${server.url}#embed=1`, { width: 800, height: 500 });
  assert.deepEqual(await seriousViolations(embed), [], 'the embed');
  const { page: phone } = await open(server.url, { width: 390, height: 844 });
  assert.deepEqual(await seriousViolations(phone), [], 'a phone');
  assert.deepEqual(errors, []);
  await Promise.all([page.close(), embed.close(), phone.close()]);
});
