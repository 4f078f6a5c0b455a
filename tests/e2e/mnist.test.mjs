// MNIST as a first-class citizen and many lanes made legible (issue 27): AIS brackets over
// training drawn as points with error bars and judged by the claims, trials refused on MNIST
// with the reason, the chart read by keyboard, hover readouts of the lane canvases, the warning
// past 8 lanes and the flag of a collapsed lane.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newPage, servePage } from './setup.mjs';

const env = servePage('/');

/** A page at `hash`, once every lane is built (MNIST lanes above the exact limit have no point). */
async function open(hash) {
  const { page, errors } = await newPage(env.browser);
  await page.goto(`${env.server.url}#${hash}`);
  await page.waitForFunction(() => window.__rbm?.ready, null, { timeout: 20_000 });
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => !l.pending && l.status === 'ready') && window.__rbm.drawn(), null, {
    timeout: 90_000,
  });
  return { page, errors };
}

const click = (page, selector) => page.evaluate((s) => document.querySelector(s).click(), selector);

test('AIS every N updates: a 784×30 lane (no exact curve) gets brackets at 0, 10 and 20, drawn as points with bars', { timeout: 240_000 }, async () => {
  const { page, errors } = await open(
    'data=mnist-test&hidden=30&init=sdcp&seed=1&every=10&stop=20&stop_unit=updates&lane=pcd:lr=0.05,k=1,batch=100,ais_every=10',
  );
  const [lane] = await page.evaluate(() => window.__rbm.lanes());
  assert.equal(lane.aisEvery, 10);
  assert.deepEqual(lane.atll, []); // no exact curve at 30 hidden units
  assert.match(await page.textContent('#chart-axes'), /estimated by AIS at the lanes’ schedule/);
  assert.match(await page.textContent('#chart-note'), /each brackets its test log-likelihood by AIS \/ RAISE every 10 updates/);
  assert.equal(await page.isVisible('#explain-ais'), true);
  assert.equal(await page.isVisible('#explain-exact'), false);
  assert.equal(await page.$eval('article[data-lane-id="0"] input.ais-auto', (i) => i.checked), true);
  await click(page, '#run');
  await page.waitForFunction(() => window.__rbm.lanes()[0].brackets.length === 3, null, { timeout: 200_000, polling: 250 });
  const { brackets, iter, status } = (await page.evaluate(() => window.__rbm.lanes()))[0];
  assert.deepEqual(
    brackets.map((b) => b.iter),
    [0, 10, 20],
  );
  assert.equal(iter, 20);
  assert.equal(status, 'done');
  for (const b of brackets) {
    assert.ok(Number.isFinite(b.ais) && Number.isFinite(b.raise), JSON.stringify(b));
    assert.ok(b.lo <= b.ais && b.ais <= b.hi && b.lo <= b.raise && b.raise <= b.hi, JSON.stringify(b));
    assert.ok(b.ais < 0 && b.ais > -784 * Math.LN2, JSON.stringify(b));
  }
  // The readout names the bracket of the latest point; the panel counts them.
  await page.waitForFunction(() => /AIS: −\d+\.\d{3} \[−\d+\.\d{3}, −\d+\.\d{3}\]/.test(document.querySelector('.readout').textContent));
  assert.match(await page.textContent('article[data-lane-id="0"] .ais-schedule'), /^· 3 brackets, the latest at update 20: AIS −\d+\.\d\d/);
  // The link keeps the schedule.
  assert.match(page.url(), /lane=pcd:ais_every=10,/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('sdcp-mnist: every lane brackets its log-likelihood on the preset schedule and the claim is judged on the brackets', { timeout: 300_000 }, async () => {
  // The preset's own link, made small: 30 hidden units, 2 updates (brackets at 0 and at the end).
  const lanes = [
    'lane=cd:label=CD-24,ais_every=40,lr=0.01,k=24,batch=200',
    "lane=sdcp:label=S-DCP%20d%3D6%20K'%3D4,ais_every=40,lr=0.01,d=6,kprime=4,batch=200",
    "lane=cs-dcp:label=CS-DCP%20d%3D6%20K'%3D4,ais_every=40,lr=0.01,d=6,kprime=4,nu_mu=0.01,nu_lambda=0.01,batch=200",
  ].join('&');
  const { page, errors } = await open(`data=mnist&hidden=30&init=sdcp&seed=1&every=2&exact_bits=20&axis=sweeps&stop=2&preset=sdcp-mnist&rate=0&${lanes}`);
  assert.match(await page.textContent('#claims-list'), /not decided yet/);
  assert.match(await page.textContent('#intro'), /the chart plots each lane's AIS estimate of the mnist-test log-likelihood every 40 updates/);
  assert.doesNotMatch(await page.textContent('#intro'), /exact/);
  await click(page, '#run');
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.brackets.length === 2), null, { timeout: 280_000, polling: 250 });
  const got = await page.evaluate(() => window.__rbm.lanes().map((l) => l.brackets.map((b) => [b.iter, b.sweeps])));
  assert.deepEqual(got, [
    [
      [0, 0],
      [2, 48],
    ],
    [
      [0, 0],
      [2, 48],
    ],
    [
      [0, 0],
      [2, 48],
    ],
  ]);
  await page.waitForFunction(() => [...document.querySelectorAll('#claims-list li')].every((li) => li.dataset.status !== 'undecided'));
  assert.match(await page.textContent('#claims-note'), /checked on this run's AIS brackets/);
  assert.match(await page.textContent('#claims-list'), /(holds|does not hold): CS-DCP gets 90% of the way/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('Trials on MNIST are refused at the input with the reason, and the link stays clean', { timeout: 120_000 }, async () => {
  const { page, errors } = await open('data=mnist-test&hidden=16&init=sdcp&seed=1&every=10&stop=20&stop_unit=updates&lane=pcd:lr=0.05,k=1,batch=100');
  await page.fill('#trials', '2');
  await page.dispatchEvent('#trials', 'change');
  await page.waitForFunction(() => /trials run on the small data sets only/.test(document.querySelector('#err-trials')?.textContent ?? ''));
  assert.doesNotMatch(page.url(), /trials=/);
  assert.equal(await page.evaluate(() => window.__rbm.state().trials), null);
  assert.deepEqual(errors, []);
  await page.close();
});

test('many lanes: one warning past 8, a collapsed lane flagged with Pause, the chart by keyboard, hover readouts', { timeout: 180_000 }, async () => {
  const cd = 'lane=cd:lr=0.1,k=1,chains=1000';
  const { page, errors } = await open(
    `data=bas4&hidden=16&init=ucd&seed=1&every=100&stop=300&lane=cd:lr=1000000000,k=1,chains=1000&${Array(8).fill(cd).join('&')}`,
  );
  assert.match(await page.textContent('#lanes-warning'), /^9 lanes: past 8 the chart is hard to read/);
  assert.equal(await page.$eval('#lanes-warning', (e) => e.hidden), false);
  await page.evaluate(() => document.querySelector('article[data-lane-id="8"] button.remove').click());
  await page.waitForFunction(() => document.querySelector('#lanes-warning').hidden);
  // η = 10⁹: the lane collapses; the card says so and offers to pause it.
  await click(page, '#run');
  await page.waitForFunction(() => document.querySelector('article[data-lane-id="0"]').dataset.collapsed === 'true', null, { timeout: 120_000 });
  const card = 'article[data-lane-id="0"]';
  assert.match(await page.textContent(`${card} .collapsed`), /Its log-likelihood collapsed: −[\d.]+·10\S+ now, from −11\.\d+ at its start/);
  assert.equal(await page.$eval('article[data-lane-id="1"]', (e) => e.dataset.collapsed), 'false');
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.status === 'done' || l.status === 'failed' || l.status === 'paused'), null, {
    timeout: 120_000,
  });
  // The chart by keyboard: focus it, → goes to the first point, End to the last.
  await page.focus('#chart .plot');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => /^parameter updates: 0/.test(document.querySelector('.readout').textContent));
  await page.keyboard.press('End');
  await page.waitForFunction(() => /^parameter updates: 300/.test(document.querySelector('.readout').textContent));
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => /^latest/.test(document.querySelector('.readout').textContent));
  // Hovering a weight filter names its hidden unit and weight range; a bar its pattern and p(v).
  const filters = await page.$('article[data-lane-id="1"] canvas.filters');
  await filters.scrollIntoViewIfNeeded();
  // A card off screen draws once it comes into view.
  await page.waitForFunction(() => document.querySelector('article[data-lane-id="1"] canvas.filters').width > 0);
  const fb = await filters.boundingBox();
  await page.mouse.move(fb.x + 2, fb.y + 2);
  await page.waitForFunction(() =>
    /^hidden unit 1 of 16: weights from −?[\d.]+ to −?[\d.]+$/.test(
      document.querySelector('article[data-lane-id="1"] .panel-filters .hover-readout').textContent,
    ),
  );
  const bars = await page.$('article[data-lane-id="1"] canvas.dist');
  await bars.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector('article[data-lane-id="1"] canvas.dist').width > 0);
  const bb = await bars.boundingBox();
  await page.mouse.move(bb.x + 3, bb.y + 20);
  await page.waitForFunction(() =>
    /^pattern 1 \([01]{4}( [01]{4}){3}\): p\(v\) = [\d.e−-]+, in the data 0\.0\d+$/.test(
      document.querySelector('article[data-lane-id="1"] .panel-distribution .hover-readout').textContent,
    ),
  );
  assert.deepEqual(errors, []);
  await page.close();
});
