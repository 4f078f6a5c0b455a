// End-to-end tests of the papers' views in the page (issue 9): the exact chain after k sweeps
// and the live gradient error give, at a lane's model, the numbers of `rbm chain` and `rbm grad`
// at the same model file; ‖W‖ per hidden unit against the model file's weights; the τ histogram
// of a UCD study; PNG export of a chart.
//
// Run: node --test tests/e2e/papers.test.mjs (after `npm run build`).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { enter, lanes, openPage, rbmCli, SETTLED, servePage, waitForUpdates } from './setup.mjs';

const env = servePage('/');

/** The first screen on Bars & Stripes 3×3 with 4 hidden units (2^13 joint states), trained
 * `updates` updates and paused, with its lane 0 model file. */
async function trainedBas3(updates, data = 'bas3', hidden = '4') {
  const { page, errors } = await openPage(env.browser, env.server.url);
  await page.selectOption('#data', data);
  await enter(page, '#hidden', hidden);
  await page.waitForFunction(SETTLED);
  await page.click('#run');
  await waitForUpdates(page, updates);
  await page.click('#run');
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.status === 'paused'));
  const card = 'article[data-lane-id="0"]';
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(`${card} button.export`)]);
  const model = await download.path();
  return { page, errors, card, model, lane: (await lanes(page))[0] };
}

const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-12, `${what}: page ${a}, CLI ${b}`);

test("the exact chain after k sweeps is `rbm chain`'s at the lane's model, drawn with its caption and a PNG", { timeout: 240_000 }, async () => {
  const { page, errors, card, model, lane } = await trainedBas3(300);
  const view = `${card} .chain-time`;
  assert.ok(await page.isVisible(`${card} .chain-view`), 'offered for a 9×4 model');
  for (const [start, k] of [
    ['data', '50'],
    ['uniform', '10'],
  ]) {
    // The view options are the schema's: one value for the page, in its URL.
    await page.selectOption('#lane-0-chain_start', start);
    await enter(page, '#lane-0-chain_k', k);
    await page.waitForFunction((want) => document.querySelector('#lane-1-chain_k').value === want, k); // one value for every lane
    await page.waitForFunction((want) => window.location.hash.includes(want), k === '50' ? '&lane=pcd' : `&chain_start=${start}&chain_k=${k}`);
    await page.click(`${card} .chain-run`);
    await page.waitForFunction(
      ([sel, start, k]) => {
        const d = document.querySelector(sel).dataset;
        return d.state === 'done' && d.start === start && JSON.parse(d.points).length === Number(k) + 1;
      },
      [view, start, k],
      { timeout: 60_000 },
    );
    const points = JSON.parse(await page.getAttribute(view, 'data-points'));
    assert.equal(Number(await page.getAttribute(view, 'data-iter')), lane.iter);
    const cli = rbmCli(['chain', '--model', model, '--data', 'bas3', '--start', start, '--k-max', k]);
    assert.equal(points.length, cli.length);
    for (const [p, c] of points.map((p, i) => [p, cli[i]])) {
      assert.equal(p.k, c.k);
      for (const key of ['tv_model', 'kl_model', 'tv_data']) close(p[key], c[key], `${start} k=${p.k} ${key}`);
    }
    if (start === 'data') {
      assert.equal(points[0].tv_data, 0);
      assert.ok(points[1].tv_model > 0.01, 'after one sweep from the data the chain is still away from the model');
      assert.match(await page.textContent(`${card} .chain-caption`), /CD-k .* biased/);
    }
  }
  // The chart is drawn (uPlot's canvas) and downloads as a PNG named after the lane.
  await page.locator(`${card} .chain-time .uplot canvas`).scrollIntoViewIfNeeded();
  const [png] = await Promise.all([page.waitForEvent('download'), page.click(`${card} .chain-time button.png-export`)]);
  assert.match(png.suggestedFilename(), /^rbm-bas3-cd.*-chain-time\.png$/);
  assert.deepEqual([...readFileSync(await png.path()).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  assert.deepEqual(errors, []);
  await page.close();
});

test("the live gradient error is `rbm grad`'s at the lane's model and seed; a cancelled estimate stops", { timeout: 240_000 }, async () => {
  const { page, errors, card, model, lane } = await trainedBas3(200);
  const view = `${card} .grad-error`;
  await enter(page, '#lane-0-grad_reps', '20');
  await page.click(`${card} .grad-run`);
  // Done at the paused lane's update (the interval may have made an earlier one while it trained).
  await page.waitForFunction(
    ([sel, iter]) => document.querySelector(sel).dataset.state === 'done' && document.querySelector(sel).dataset.iter === String(iter),
    [view, lane.iter],
    {
      timeout: 60_000,
    },
  );
  const seed = await page.getAttribute(view, 'data-seed');
  const mine = JSON.parse(await page.getAttribute(view, 'data-estimate'));
  const flags = Object.entries(lane.options)
    .filter(([key, v]) => v !== null && !['lr', 'weight_decay', 'momentum'].includes(key))
    .flatMap(([key, v]) => [`--${key.replace(/_/g, '-')}`, String(v)]);
  const [cli] = rbmCli(['grad', '--model', model, '--data', 'bas3', '--algo', lane.algo, ...flags, '--reps', '20', '--seed', seed, '--threads', '2']);
  assert.equal(mine.algo, cli.algo);
  assert.equal(mine.reps, 20);
  assert.equal(mine.chains, cli.chains);
  for (const [b, c] of mine.blocks.map((b, i) => [b, cli.blocks[i]])) {
    assert.equal(b.block, c.block);
    for (const key of ['exact', 'mean', 'std_err']) {
      for (const [i, x] of b[key].entries()) close(x, c[key][i], `${b.block}.${key}[${i}]`);
    }
    close(b.bias_norm, c.bias_norm, `${b.block} bias`);
  }
  assert.match(await page.textContent(`${card} .grad-text`), /At update [\d,]+ over 20 repetitions: bias /);
  assert.ok(Number(await page.getAttribute(view, 'data-points')) >= 1);
  assert.ok(await page.locator(`${view} .uplot canvas`).count(), 'the history is drawn');

  // Cancel: 10 000 repetitions (seconds of work) stop at once and say so.
  await enter(page, '#lane-0-grad_reps', '10000');
  await page.waitForFunction(() => window.location.hash.includes('grad_reps=10000'));
  await page.click(`${card} .grad-run`);
  await page.click(`${card} .grad-cancel`);
  await page.waitForFunction((sel) => document.querySelector(sel).dataset.state === 'cancelled', view);
  assert.match(await page.textContent(`${card} .grad-status`), /cancelled/);
  // A refused value stays in its input with the schema's message, and changes nothing.
  await enter(page, '#lane-0-grad_reps', '1');
  await page.waitForFunction(() => /from 2 to 10000/.test(document.querySelector('#lane-0-grad_reps-err').textContent));
  assert.match(page.url(), /grad_reps=10000/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("‖W‖ per hidden unit: the lane's worker sends the norms of the model's weight columns over training, those of the model file at the paused update", {
  timeout: 240_000,
}, async () => {
  const { page, errors, card, model, lane } = await trainedBas3(300);
  const view = `${card} .weight-norms`;
  await page.locator(view).scrollIntoViewIfNeeded();
  await page.waitForFunction(([sel, iter]) => document.querySelector(sel)?.dataset.iter === String(iter), [view, lane.iter]);
  const file = JSON.parse(readFileSync(model, 'utf8'));
  const [m, n] = [file.visible, file.hidden];
  assert.equal(await page.getAttribute(view, 'data-units'), `${n}/${n}`);
  const norms = (await page.getAttribute(view, 'data-norms')).split(',').map(Number);
  assert.equal(norms.length, n);
  for (let j = 0; j < n; j++) {
    const col = Array.from({ length: m }, (_, i) => file.w[i * n + j]);
    const want = Math.hypot(...col);
    assert.ok(want > 0 && Math.abs(norms[j] - want) <= 1e-5 * want, `unit ${j + 1}: page ${norms[j]}, model file ${want}`);
  }
  // A column per update seen while it trained, drawn one pixel each; the chart of mean and largest.
  const columns = Number(await page.getAttribute(view, 'data-columns'));
  assert.ok(columns >= 2, `${columns} columns`);
  assert.deepEqual(await page.$eval(`${view} canvas.norm-strip`, (c) => [c.width, c.height]), [columns, n]);
  assert.ok(await page.locator(`${view} .uplot canvas`).count(), 'the mean and largest norm are drawn');
  assert.match(
    await page.textContent(`${view} .norm-caption`),
    new RegExp(`each of the ${n} hidden units .* At update ${lane.iter.toLocaleString('en')}: mean`),
  );
  assert.deepEqual(errors, []);
  await page.close();
});

test("UCD's τ histogram: the lane's chains of its latest update, and a study's trials summed; the charts download as PNG and the exports carry the page's state", {
  timeout: 300_000,
}, async () => {
  // One live UCD lane of 100 chains.
  // A link can set the panels' options and hide them (the schema's parts).
  const { page, errors } = await openPage(env.browser, `${env.server.url}#lane=ucd:chains=100&grad_every=0&hide=grad_reps,chain-time`);
  assert.equal(await page.inputValue('#lane-0-grad_every'), '0');
  assert.equal(await page.isVisible('#lane-0-grad_reps'), false);
  assert.equal(await page.isVisible('#lane-0-grad_every'), true);
  assert.equal(await page.isVisible('article[data-lane-id="0"] .chain-view'), false);
  await page.click('#run');
  await waitForUpdates(page, 200);
  await page.click('#run');
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.status === 'paused'));
  const tau = 'article[data-lane-id="0"] .tau-histogram';
  await page.locator(tau).scrollIntoViewIfNeeded();
  await page.waitForFunction((sel) => document.querySelector(sel)?.dataset.counts, tau);
  const counts = (await page.getAttribute(tau, 'data-counts')).split(',').map(Number);
  assert.equal(
    counts.reduce((a, b) => a + b, 0),
    100,
    'one τ per chain',
  );
  assert.equal(counts[0], 0, 'τ ≥ 1');
  const [lane] = await lanes(page);
  assert.equal(Number(await page.getAttribute(tau, 'data-iter')), lane.iter);
  assert.match(await page.textContent(`${tau} .tau-caption`), /Stopping times τ of the 100 chains of update [\d,]+: mean \d+\.\d\d steps/);
  assert.ok(await page.locator(`${tau} .uplot canvas`).count());
  // The likelihood chart as a PNG.
  const [png] = await Promise.all([page.waitForEvent('download'), page.click('#chart button.png-export')]);
  assert.match(png.suggestedFilename(), /^rbm-bas4-log-likelihood\.png$/);
  assert.deepEqual([...readFileSync(await png.path()).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  await page.close();

  // A short UCD study: the histogram sums every trial's latest update.
  const { page: p2, errors: errors2 } = await openPage(env.browser, env.server.url);
  await p2.selectOption('#preset', 'ucd-bas4');
  await p2.waitForFunction(() => window.__rbm.lanes().length === 3);
  await p2.waitForFunction(SETTLED, null, { timeout: 30_000 });
  await enter(p2, '#trials', '2');
  await enter(p2, '#stop', '100');
  await p2.waitForFunction(SETTLED);
  await p2.click('#run');
  await p2.waitForFunction(() => window.__rbm.study()?.status === 'done', null, { timeout: 240_000, polling: 250 });
  await p2.waitForFunction(() => !document.querySelector('#tau-study').hidden);
  const summed = (await p2.getAttribute('#tau-study', 'data-counts')).split(',').map(Number);
  const ucd = (await lanes(p2)).find((l) => l.algo === 'ucd');
  const chains = ucd.options.chains;
  assert.equal(
    summed.reduce((a, b) => a + b, 0),
    2 * chains,
    `every chain of both trials (${chains} each)`,
  );
  assert.match(await p2.textContent('#tau-study-note'), /^UCD: Stopping times τ of the [\d,]+ chains of 2 trials at update 100 \(each trial's latest\)/);
  const [tauPng] = await Promise.all([p2.waitForEvent('download'), p2.click('#tau-study button.png-export')]);
  assert.equal(tauPng.suggestedFilename(), 'rbm-ucd-bas4-ucd-tau-histogram.png');
  // The JSON export says how it was made: the page's address with its state.
  const [json] = await Promise.all([p2.waitForEvent('download'), p2.click('#export-json')]);
  const doc = JSON.parse(readFileSync(await json.path(), 'utf8'));
  assert.match(doc.url, /#.*preset=ucd-bas4.*trials=2/);
  assert.equal(doc.url, p2.url());
  assert.deepEqual(errors, []);
  assert.deepEqual(errors2, []);
  await p2.close();
});

// Issue 29: the exact mixing diagnostics of a lane's model are `rbm mixing`'s, drawn over training.
test("the lane's exact mixing (λ₂, relaxation time, σ₁, modes) is `rbm mixing`'s at the lane's model", { timeout: 240_000 }, async () => {
  const { page, errors, card, model, lane } = await trainedBas3(300);
  const view = `${card} .mixing`;
  await page.locator(view).scrollIntoViewIfNeeded();
  await page.evaluate((sel) => document.querySelector(`${sel} .mixing-run`).click(), card);
  // Points computed while the lane trained (every 500 updates) came first; this one is at the paused update.
  await page.waitForFunction(
    ([sel, iter]) => document.querySelector(sel).dataset.state === 'done' && document.querySelector(sel).dataset.iter === String(iter),
    [view, lane.iter],
    {
      timeout: 60_000,
    },
  );
  assert.ok(Number(await page.getAttribute(view, 'data-points')) >= 2, 'points over training, and the one asked for');
  const [cli] = rbmCli(['mixing', '--model', model, '--data', 'bas3']);
  close(Number(await page.getAttribute(view, 'data-lambda2')), cli.lambda2, 'λ₂');
  const text = await page.textContent(`${view} .mixing-text`);
  assert.ok(text.includes(`λ₂ = ${cli.lambda2.toFixed(6)}`), text);
  assert.ok(text.includes(`p(v) has ${cli.modes} mode`), text);
  // The data on W's top two singular directions: the CLI's projection, row by row.
  const projection = JSON.parse(await page.getAttribute(view, 'data-projection'));
  assert.equal(projection.length, cli.data_projection.length);
  projection.forEach(([x, y], i) => {
    close(x, cli.data_projection[i][0], `row ${i} on u₁`);
    close(y, cli.data_projection[i][1], `row ${i} on u₂`);
  });
  assert.match(await page.textContent(`${view} .mixing-projection-figure figcaption`), /training rows \(black\) and the lane's first \d+ chains/);
  // Two charts: the relaxation time with the modes, and the strip of W's singular values (4 here).
  await page.waitForFunction((sel) => document.querySelectorAll(`${sel} .uplot canvas`).length === 2, view);
  assert.equal(await page.locator(`${view} .mixing-strip .u-legend .u-series`).count(), 1 + 4);
  assert.deepEqual(errors, []);
  await page.close();
});

// Beyond the exact kernel (16 + 16 units: 2^32 joint states) the panel shows a lower bound on λ₂,
// said as such, and it is `rbm mixing`'s bound at the lane's model.
test("a 16×16 lane's mixing panel shows `rbm mixing`'s lower bound on λ₂, said with ≥", { timeout: 240_000 }, async () => {
  const { page, errors, card, model, lane } = await trainedBas3(200, 'bas4', '16');
  const view = `${card} .mixing`;
  await page.locator(view).scrollIntoViewIfNeeded();
  // The point the panel computed at the lane's start may still be under way: the button waits for it.
  await page.waitForFunction((sel) => !document.querySelector(`${sel} .mixing-run`).disabled, card, { timeout: 120_000 });
  await page.evaluate((sel) => document.querySelector(`${sel} .mixing-run`).click(), card);
  await page.waitForFunction(
    ([sel, iter]) => document.querySelector(sel).dataset.state === 'done' && document.querySelector(sel).dataset.iter === String(iter),
    [view, lane.iter],
    { timeout: 120_000 },
  );
  const [cli] = rbmCli(['mixing', '--model', model]);
  assert.equal(cli.lambda2, undefined, 'the CLI prints no exact λ₂ for 2^32 joint states');
  close(Number(await page.getAttribute(view, 'data-lambda2')), cli.bound.lambda2_lower, 'bound on λ₂');
  const text = await page.textContent(`${view} .mixing-text`);
  assert.ok(text.includes(`λ₂ ≥ ${cli.bound.lambda2_lower.toFixed(6)}`) && text.includes('relaxation time at least'), text);
  assert.match(await page.textContent(`${view} .mixing-caption`), /lower bound/);
  await page.waitForFunction((sel) => document.querySelector(`${sel} .u-legend`)?.textContent.includes('relaxation time ≥'), view);
  assert.deepEqual(errors, []);
  await page.close();
});
