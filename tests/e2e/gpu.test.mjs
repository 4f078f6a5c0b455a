// End-to-end tests of the page's GPU lanes (issue 30): with the browser's WebGPU on (SwiftShader,
// Chromium's GPU on the CPU: correctness, not speed), a lane asked for the GPU trains MNIST in its
// worker through the GPU core (www/pkg-gpu), says so on its card, makes its exact curve, pauses
// and continues; an algorithm the page runs on the CPU only, and a browser without WebGPU, run on
// the CPU and say why. No console error anywhere.
//
// Run: npm run test:e2e   (builds the page first), or node --test tests/e2e/gpu.test.mjs
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { lanes, newPage, openPage, SETTLED, startServer, waitForUpdates } from './setup.mjs';

let gpu;
let plain;

before(async () => {
  gpu = await startServer('/', { webgpu: true });
  plain = await startServer('/');
});

after(async () => {
  await gpu?.close();
  await plain?.close();
});

const MNIST = 'data=mnist-test&hidden=16&every=30&stop=100000';

/** Clicks `selector` from the page's script: SwiftShader's GPU work shares the machine with the
 * compositor, so a pointer click (which waits for a stable frame) can wait long on a busy one. */
const press = (page, selector) => page.evaluate((sel) => document.querySelector(sel).click(), selector);

/** `openPage` with room for MNIST's load, a GPU lane's start (the GPU core's download, its
 * device and kernels compiled on SwiftShader) and the first exact points on a busy machine
 * (SwiftShader's GPU shares the CPU with the evaluation workers). */
async function openPatiently(browser, url) {
  const { page, errors, requests } = await newPage(browser);
  await page.goto(url);
  await page.waitForFunction(() => window.__rbm?.ready, null, { timeout: 30_000 });
  await page.waitForFunction(SETTLED, null, { timeout: 120_000 });
  return { page, errors, requests };
}

test('a lane on the GPU (WebGPU) trains MNIST with its exact curve, says so, pauses and goes on; the GPU core loads only then', {
  timeout: 300_000,
}, async () => {
  const { page: first, requests: firstRequests } = await openPage(gpu.browser, gpu.server.url);
  assert.ok(!firstRequests.some((u) => u.includes('rbm_playground-')), 'the first screen does not load the GPU core');
  // The choice is offered with the adapter's name where the browser has one.
  await first.waitForFunction(() => !document.querySelector('.compute-field')?.hidden, null, { timeout: 20_000 });
  assert.match(await first.textContent('#compute option[value="gpu"]'), /^GPU \(WebGPU\)/);
  await first.close();

  const { page, errors, requests } = await openPatiently(
    gpu.browser,
    `${gpu.server.url}#${MNIST}&compute=gpu&lane=pcd:batch=100,chains=100,lr=0.05&lane=cd:batch=100,lr=0.05`,
  );
  assert.equal(await page.inputValue('#compute'), 'gpu');
  let ls = await lanes(page);
  for (const l of ls) {
    assert.ok(l.gpu, `lane ${l.algo} runs on the GPU: ${l.notice}`);
    assert.equal(l.atll.length, 1, 'the record at update 0');
  }
  assert.ok(
    requests.some((u) => /rbm_playground-[\w-]+\.js/.test(u)),
    'the GPU core was loaded for the GPU lanes',
  );
  assert.match(await page.textContent('article[data-lane-id="0"]'), /GPU \(WebGPU\): /);
  // Slow motion traces on the CPU: a GPU lane's Step is disabled, and the panel says why.
  assert.equal(await page.isDisabled('article[data-lane-id="0"] .panel-slowmo button.step'), true);
  assert.match(await page.textContent('article[data-lane-id="0"] .panel-slowmo .gpu-note'), /this lane runs on the GPU/);
  await press(page, '#run');
  await waitForUpdates(page, 90, null, 240_000);
  await press(page, '#run');
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.status === 'paused'), null, { timeout: 30_000 });
  ls = await lanes(page);
  for (const l of ls) {
    assert.ok(l.iters.length >= 4, `${l.algo}: records at 0, 30, 60, 90 at least (${l.iters})`);
    assert.deepEqual(l.iters.slice(0, 4), [0, 30, 60, 90], `${l.algo}: a record every 30 updates, in order`);
    assert.ok(
      l.atll.every((a) => Number.isFinite(a) && a < 0),
      `${l.algo}: exact ATLL ${l.atll}`,
    );
    assert.ok(l.rate > 0, `${l.algo}: a rate`);
  }
  // Paused lanes stay where they are, then go on from there.
  const at = ls.map((l) => l.iter);
  await page.waitForTimeout(500);
  assert.deepEqual(
    (await lanes(page)).map((l) => l.iter),
    at,
  );
  await press(page, '#run');
  await waitForUpdates(page, Math.max(...at) + 30, null, 240_000);

  // The GPU fails (a driver reset): the lane goes on on the CPU from its latest record, its
  // curve kept, and says so; the other lane trains on, on the GPU.
  const before = (await lanes(page))[0];
  await page.evaluate(() => window.__rbm.loseGpu(0));
  await page.waitForFunction(() => window.__rbm.lanes()[0].gpu === null, null, { timeout: 60_000 });
  const moved = (await lanes(page))[0];
  assert.match(moved.notice ?? '', /^The GPU stopped \(.+\): the lane goes on on the CPU from update \d+\.$/);
  assert.deepEqual(moved.iters.slice(0, before.iters.length), before.iters, 'the curve is kept');
  assert.equal(moved.status, 'running');
  const last = moved.iters.at(-1);
  await page.waitForFunction((n) => window.__rbm.lanes()[0].iters.at(-1) >= n + 60, last, { timeout: 120_000 });
  const after = await lanes(page);
  assert.ok(after[1].gpu, 'the other lane is still on the GPU');
  assert.ok(
    after[0].iters.every((x, i, a) => i === 0 || x > a[i - 1]),
    `increasing updates: ${after[0].iters}`,
  );
  assert.deepEqual(errors, []);
});

// SwiftShader runs a dispatch in milliseconds (a real GPU in microseconds): 25 chains × 100 β
// keep this run short (about a minute here); on a model 30 updates from its start AIS lands within
// a nat and RAISE within a few.
test("a GPU lane's AIS / RAISE estimate runs on its GPU, says so, and brackets the exact value", { timeout: 300_000 }, async () => {
  const { page, errors } = await openPatiently(
    gpu.browser,
    `${gpu.server.url}#data=mnist-test&hidden=16&seed=1&every=10&stop=30&compute=gpu&lane=pcd:lr=0.05,k=1,batch=100`,
  );
  const card = 'article[data-lane-id="0"]';
  const panel = `${card} .ais`;
  await press(page, '#run');
  await page.waitForFunction((sel) => document.querySelector(sel).dataset.status === 'done', card, { timeout: 120_000 });
  await page.selectOption(`${card} select[id$="-ais-particles"]`, '25');
  await page.selectOption(`${card} select[id$="-ais-betas"]`, '100');
  await press(page, `${panel} button.ais-run`);
  await page.waitForFunction((sel) => document.querySelector(sel).dataset.state === 'done', panel, { timeout: 240_000 });
  const r = await page.evaluate((sel) => {
    const d = document.querySelector(sel).dataset;
    const n = (k) => (d[k] === '' ? null : Number(d[k]));
    return { ais: n('ais'), raise: n('raise'), exact: n('exact'), iter: n('iter') };
  }, panel);
  assert.equal(r.iter, 30, 'the model of the update the lane stopped at');
  // AIS over-, RAISE under-estimates on average (half a nat of slack for one run), both near it.
  assert.ok(r.raise - 0.5 <= r.exact && r.exact <= r.ais + 0.5, `exact outside: ${JSON.stringify(r)}`);
  assert.ok(r.ais - r.exact < 2 && r.exact - r.raise < 5, `too far: ${JSON.stringify(r)}`);
  assert.match(await page.textContent(`${panel} .ais-result`), /25 particles × 100 β, seed 1 · on the GPU \(WebGPU, f32\): /);
  assert.deepEqual(errors, []);
});

test('UCD asked for the GPU runs on the CPU and says why, FPCD on the GPU with its ‖W_F‖; every lane runs on the CPU where the browser has no WebGPU', {
  timeout: 180_000,
}, async () => {
  const { page, errors } = await openPatiently(gpu.browser, `${gpu.server.url}#data=bas3&hidden=4&compute=gpu&lane=ucd&lane=fpcd&lane=cd`);
  let [ucd, fpcd, cd] = await lanes(page);
  assert.equal(ucd.gpu, null);
  assert.match(ucd.notice ?? '', /^Runs on the CPU: ucd runs on the CPU in the page \(UCD's chains stop one by one/);
  // FPCD's ‖W_F‖ of every update stays on the GPU until its record's copy (no read per update).
  assert.ok(fpcd.gpu, `FPCD runs on the GPU: ${fpcd.notice}`);
  assert.ok(cd.gpu, 'CD runs on the GPU');
  await press(page, '#run');
  await waitForUpdates(page, 200);
  await page.waitForFunction(() => window.__rbm.lanes()[1].atll.length > 1, null, { timeout: 60_000 });
  [ucd, fpcd, cd] = await lanes(page);
  assert.ok(ucd.atll.length > 1 && fpcd.atll.length > 1 && cd.atll.length > 1);
  assert.ok(fpcd.gpu, 'FPCD stayed on the GPU');
  const norm = fpcd.stats.fast_w_norm;
  assert.ok(Number.isFinite(norm) && norm > 0, `‖W_F‖ ${norm}`);
  assert.deepEqual(errors, []);

  // Automatic (the default): MNIST-sized models on the GPU, the small sets on the CPU.
  const { page: auto, errors: e3 } = await openPatiently(gpu.browser, `${gpu.server.url}#${MNIST}&lane=cd:batch=100,lr=0.05`);
  assert.equal(await auto.inputValue('#compute'), 'auto');
  await auto.waitForFunction(() => window.__rbm.lanes().every((l) => l.gpu && l.status === 'ready'), null, { timeout: 60_000 });
  assert.doesNotMatch(auto.url(), /compute=/, 'automatic is the default: the link does not say it');
  await auto.close();
  const { page: small } = await openPage(gpu.browser, gpu.server.url);
  assert.ok(
    (await lanes(small)).every((l) => l.gpu === null && !l.notice),
    'the first screen stays on the CPU',
  );
  await small.close();
  assert.deepEqual(e3, []);

  const { page: p2, errors: e2 } = await openPage(plain.browser, `${plain.server.url}#data=bas3&hidden=4&compute=gpu&lane=cd`);
  const [l] = await lanes(p2);
  assert.equal(l.gpu, null);
  assert.match(l.notice ?? '', /^Runs on the CPU: /);
  await p2.click('#run');
  await waitForUpdates(p2, 100);
  assert.deepEqual(e2, []);
});

// A study of sdcp-mnist (measured by AIS at every checkpoint, as `rbm reproduce` measures it),
// tiny for SwiftShader: one lane of 16 hidden units, 2 trials of 2 updates, AIS of 4 particles ×
// 10 β at updates 0 and 2 (the test hook's; the preset's are 100 × 1 000).
const TINY_STUDY = 'data=mnist&preset=sdcp-mnist&rate=0&hidden=16&seed=1&every=2&stop=2&trials=2&lane=cd:k=1,batch=100,lr=0.01';

/** Runs the page's study to its end (`during` runs once it has started) and returns it (the
 * test hook's snapshot). */
async function runStudy(page, during = async () => undefined) {
  await page.evaluate(() => window.__rbm.setStudyAis({ particles: 4, betas: 10 }));
  await press(page, '#run');
  await during();
  await page.waitForFunction(() => window.__rbm.study()?.status === 'done', null, { timeout: 240_000, polling: 250 });
  await page.waitForFunction(() => window.__rbm.drawn());
  const study = await page.evaluate(() => window.__rbm.study());
  // The chart draws the band: its readout gives the median and q10–q90 in numbers.
  assert.match(await page.textContent('#chart-readout'), /: −\d+\.\d{3} \(q10–q90 −\d+\.\d{3} … −\d+\.\d{3}\)/);
  return study;
}

/** Every trial ended with a finite AIS point at each checkpoint, and every band is drawn from both. */
function assertMeasured(study) {
  const [lane] = study.lanes;
  for (const t of lane.trials) {
    assert.equal(t.state, 'done', `trial ${t.index}: ${t.message}`);
    assert.deepEqual(t.iters, [0, 2]);
    assert.ok(
      t.atll.every((a) => Number.isFinite(a) && a < 0),
      `AIS ATLL ${t.atll}`,
    );
  }
  assert.ok(
    lane.bands.every((b) => b && b.trials === 2 && Number.isFinite(b.median)),
    `bands: ${JSON.stringify(lane.bands)}`,
  );
}

test("a study of an MNIST preset measured by AIS runs its trials on the GPU and says so; the paper's scale is offered", { timeout: 300_000 }, async () => {
  // The paper's scale in the picker where WebGPU is: the catalog's trials, length and AIS.
  // Its lanes on the CPU here (784×500 lanes built on SwiftShader take long; the study below
  // runs on the GPU); they have no exact curve (AIS brackets), so not `SETTLED`.
  const { page: pick, errors: pickErrors } = await newPage(gpu.browser);
  await pick.goto(`${gpu.server.url}#preset=sdcp-mnist&compute=cpu`);
  await pick.waitForFunction(() => window.__rbm?.ready, null, { timeout: 30_000 });
  await pick.waitForFunction(() => !document.querySelector('#preset-scale-field')?.hidden, null, { timeout: 30_000 });
  assert.equal(await pick.inputValue('#preset-scale'), 'page');
  await pick.selectOption('#preset-scale', 'paper');
  await pick.waitForFunction(() => window.__rbm.state().scale === 'paper');
  const paper = await pick.evaluate(() => window.__rbm.catalog().presets.find((p) => p.name === 'sdcp-mnist').paper_scale);
  assert.equal(await pick.inputValue('#trials'), String(paper.trials));
  assert.match(pick.url(), /scale=paper/);
  assert.match(pick.url(), new RegExp(`trials=${paper.trials}`));
  const note = await pick.textContent('#preset-scale-note');
  assert.ok(note.includes(`${paper.trials} trials per lane of ${paper.iters.toLocaleString('en')} updates`), note);
  assert.ok(note.includes(`AIS of ${paper.ais.particles} particles × ${paper.ais.betas.toLocaleString('en')} β`), note);
  assert.match(await pick.textContent('#study-progress'), /^Start runs 10 trials per lane\.$/);
  await pick.close();
  assert.deepEqual(pickErrors, []);

  const { page, errors } = await openPatiently(gpu.browser, `${gpu.server.url}#${TINY_STUDY}`);
  assert.match(await page.textContent('#study-progress'), /^Start runs 2 trials per lane on the GPU/);
  // Once the first point is in, one trial's GPU fails (a driver reset): that trial runs again on
  // the CPU from update 0, saying so; the other goes on, on the GPU.
  let lost = null;
  const study = await runStudy(page, async () => {
    await page.waitForFunction(() => window.__rbm.study()?.lanes[0].trials.some((t) => t.gpu && t.iters.length > 0), null, { timeout: 120_000, polling: 100 });
    lost = await page.evaluate(() => window.__rbm.loseTrialGpu());
  });
  assertMeasured(study);
  assert.ok(lost, 'a trial was under way when its GPU was lost');
  const trials = study.lanes[0].trials;
  assert.equal(trials[lost.index].gpu, null, 'the trial whose GPU failed ran again on the CPU');
  for (const t of trials.filter((x) => x.index !== lost.index)) assert.ok(t.gpu, `trial ${t.index} ran on the GPU`);
  const device = await page.textContent('#study-device');
  assert.match(device, /^Device: GPU \(WebGPU, f32\): .+; 1 trial on the CPU \(wasm\)\. A GPU study's numbers are its own/);
  assert.match(device, /The GPU stopped \(.+\): the trial runs again on the CPU from update 0\./);
  assert.deepEqual(errors, []);
});

// The same tiny study with 4 trials of checkpoints at updates 0 and 2: its trials' AIS annealed
// by the study's AIS worker in batches, or (the test hook) each trial's own — a batch of its model
// alone on its own GPU. A model's log-weights in a batch are, bit for bit, those of a batch of it
// alone (rbm_gpu's Anneal::batch), so the two studies' numbers are equal, not just close.
const BATCH_STUDY = TINY_STUDY.replace('trials=2', 'trials=4');

/** Runs BATCH_STUDY on a fresh page with the study's AIS worker on (`batch`) or off; `lose`:
 * the AIS worker's GPU fails in its first batch (the test hook). */
async function batchStudy(batch, lose = false) {
  const { page, errors } = await openPatiently(gpu.browser, `${gpu.server.url}#${BATCH_STUDY}`);
  await page.evaluate((b) => window.__rbm.setStudyAisBatch(b), batch);
  let line = null;
  const study = await runStudy(page, async () => {
    if (!batch) return;
    if (lose) {
      assert.equal(await page.evaluate(() => window.__rbm.loseStudyAisGpu()), true);
      await page.waitForFunction(() => /^AIS: the study's AIS worker failed/.test(document.querySelector('#study-ais')?.textContent ?? ''), null, {
        timeout: 120_000,
        polling: 50,
      });
      line = await page.textContent('#study-ais');
      return;
    }
    // The study's line says what the AIS worker does while the study runs.
    await page.waitForFunction(() => /^AIS in batches \(the study's AIS worker\)/.test(document.querySelector('#study-ais')?.textContent ?? ''), null, {
      timeout: 120_000,
      polling: 50,
    });
    line = await page.textContent('#study-ais');
  });
  assert.deepEqual(errors, []);
  await page.close();
  return { study, line };
}

test("a GPU study's checkpoints are annealed in batches by the study's AIS worker, with the numbers of each trial's own AIS", {
  timeout: 600_000,
}, async (t) => {
  const own = await batchStudy(false);
  const batched = await batchStudy(true);
  for (const { study } of [own, batched]) {
    const [lane] = study.lanes;
    assert.equal(lane.trials.length, 4);
    for (const t of lane.trials) {
      assert.equal(t.state, 'done', `trial ${t.index}: ${t.message}`);
      assert.ok(t.gpu, `trial ${t.index} ran on the GPU`);
      assert.deepEqual(t.iters, [0, 2]);
      assert.ok(
        t.atll.every((a) => Number.isFinite(a) && a < 0),
        `AIS ATLL ${t.atll}`,
      );
    }
  }
  assert.equal(own.study.ais, null, 'no AIS worker when each trial anneals its own');
  const ais = batched.study.ais;
  assert.ok(ais, 'the batched study has an AIS worker');
  assert.equal(ais.failed, null);
  assert.equal(ais.lost, null);
  // Every checkpoint of every trial went through a batch, and batches formed.
  assert.equal(
    ais.batches.reduce((a, b) => a + b, 0),
    8,
    `batches ${ais.batches}`,
  );
  assert.ok(Math.max(...ais.batches) > 1, `a batch of more than one model: ${ais.batches}`);
  t.diagnostic(`models per batch: ${ais.batches.join(', ')}`);
  assert.ok(batched.line, 'the study line showed the AIS worker');
  // The same numbers, bit for bit, trial by trial.
  const atll = (r) => r.study.lanes[0].trials.map((t) => t.atll);
  assert.deepEqual(atll(batched), atll(own));
  // The models differ between trials, so the numbers do: a mix-up of answers would show above.
  assert.notEqual(atll(own)[0][1], atll(own)[1][1]);

  // The AIS worker's GPU fails in its first batch: every trial anneals its checkpoints itself,
  // the study ends with the same numbers, and its line says why.
  const failed = await batchStudy(true, true);
  assert.match(failed.study.ais.failed, /^the study's AIS worker failed \(.+\)$/);
  assert.match(failed.line, /each trial anneals its checkpoints on its own GPU/);
  assert.deepEqual(atll(failed), atll(own));
});

test("without WebGPU the paper's scale is not offered and the same study runs on the CPU", { timeout: 240_000 }, async () => {
  const { page, errors } = await openPatiently(plain.browser, `${plain.server.url}#${TINY_STUDY}`);
  assert.equal(await page.isHidden('#preset-scale-field'), true);
  assert.match(await page.textContent('#study-progress'), /^Start runs 2 trials per lane\.$/);
  const study = await runStudy(page);
  assertMeasured(study);
  for (const t of study.lanes[0].trials) assert.equal(t.gpu, null);
  assert.equal(await page.isHidden('#study-device'), true);
  assert.equal(await page.isHidden('#preset-scale-field'), true);
  assert.deepEqual(errors, []);
});

// A study of pcd-mnist-25 (measured exactly at every checkpoint, as `rbm reproduce` measures
// it: the test digits' ATLL, log Z enumerated in the trial's worker), tiny for SwiftShader: one
// PCD lane of 12 hidden units (2^12 states; the preset's 25 are 2^25), 2 trials of 2 updates.
const TINY_EXACT = 'data=mnist&preset=pcd-mnist-25&rate=0&hidden=12&seed=1&every=2&stop=2&trials=2&lane=pcd:k=1,batch=100,lr=0.1';

/** Runs the page's exact-measured study to its end and returns it. */
async function runExactStudy(page) {
  await press(page, '#run');
  await page.waitForFunction(() => window.__rbm.study()?.status === 'done', null, { timeout: 240_000, polling: 250 });
  await page.waitForFunction(() => window.__rbm.drawn());
  const study = await page.evaluate(() => window.__rbm.study());
  for (const t of study.lanes[0].trials) {
    assert.equal(t.state, 'done', `trial ${t.index}: ${t.message}`);
    assert.deepEqual(t.iters, [0, 2]);
    assert.ok(
      t.atll.every((a) => Number.isFinite(a) && a < 0),
      `exact ATLL ${t.atll}`,
    );
  }
  assert.ok(study.lanes[0].bands.every((b) => b && b.trials === 2 && Number.isFinite(b.median)));
  return study;
}

test("a study of pcd-mnist-25 takes each checkpoint's exact log Z on the trial's GPU (the CPU's f64 value within 1e-6); its paper scale is offered", {
  timeout: 420_000,
}, async () => {
  // The paper's scale in the picker where WebGPU is: the catalog's 10 runs, measured exactly.
  const { page: pick, errors: pickErrors } = await newPage(gpu.browser);
  await pick.goto(`${gpu.server.url}#preset=pcd-mnist-25&compute=cpu`);
  await pick.waitForFunction(() => window.__rbm?.ready, null, { timeout: 30_000 });
  await pick.waitForFunction(() => !document.querySelector('#preset-scale-field')?.hidden, null, { timeout: 30_000 });
  await pick.selectOption('#preset-scale', 'paper');
  await pick.waitForFunction(() => window.__rbm.state().scale === 'paper');
  const paper = await pick.evaluate(() => window.__rbm.catalog().presets.find((p) => p.name === 'pcd-mnist-25').paper_scale);
  assert.equal(paper.ais, null);
  assert.equal(await pick.inputValue('#trials'), String(paper.trials));
  assert.match(pick.url(), /scale=paper/);
  const note = await pick.textContent('#preset-scale-note');
  assert.ok(
    note.includes(
      `${paper.trials} trials per lane of ${paper.iters.toLocaleString('en')} updates, the exact log-likelihood of the mnist-test digits (2^25 states enumerated)`,
    ),
    note,
  );
  assert.ok(note.includes('`rbm reproduce pcd-mnist-25 --scale paper`'), note);
  await pick.close();
  assert.deepEqual(pickErrors, []);

  const { page, errors } = await openPatiently(gpu.browser, `${gpu.server.url}#${TINY_EXACT}`);
  assert.match(await page.textContent('#study-progress'), /^Start runs 2 trials per lane on the GPU/);
  assert.match(await page.textContent('#chart-note'), /Each trial measures its checkpoints itself.*over 2\^12 states in the trial's worker/);
  const onGpu = await runExactStudy(page);
  for (const t of onGpu.lanes[0].trials) assert.ok(t.gpu, `trial ${t.index} ran on the GPU: ${t.message}`);
  assert.match(await page.textContent('#study-device'), /^Device: GPU \(WebGPU, f32\): /);
  assert.deepEqual(errors, []);

  // The same study on the CPU: the trials start from the same models, so the points at update 0
  // are the GPU's enumeration against the CPU's f64 one (later points follow other training).
  const { page: cpu, errors: cpuErrors } = await openPatiently(gpu.browser, `${gpu.server.url}#${TINY_EXACT}&compute=cpu`);
  const onCpu = await runExactStudy(cpu);
  for (const t of onCpu.lanes[0].trials) assert.equal(t.gpu, null);
  for (const [i, t] of onGpu.lanes[0].trials.entries()) {
    const want = onCpu.lanes[0].trials[i].atll[0];
    const got = t.atll[0];
    assert.ok(Math.abs((got - want) / want) < 1e-6, `trial ${i} at update 0: GPU ${got}, CPU ${want}`);
  }
  assert.deepEqual(cpuErrors, []);
});

// The sampler view on the GPU: the shipped 784×500 model's four samplers, each block of samples
// recorded on the GPU and copied back without the worker waiting, their classes and ISL counted
// on the host. A lost GPU starts the samplers again on the CPU, saying why.
test('the sampler view offers Compute with the adapter, samples on the GPU by default, labels it, and goes on on the CPU when the GPU is lost', {
  timeout: 400_000,
}, async () => {
  const { page, errors, requests } = await openPage(gpu.browser, gpu.server.url);
  await page.evaluate(() => document.querySelector('#samplers summary').click());
  await page.waitForSelector('#samplers .sampler-row');
  await page.waitForFunction(() => !document.querySelector('#samplers .sampler-compute-field')?.hidden, null, { timeout: 20_000 });
  assert.match(await page.textContent('#sampler-compute option[value="gpu"]'), /^GPU \(WebGPU\): .+/);
  assert.equal(await page.inputValue('#sampler-compute'), 'gpu', 'the GPU is the default where an adapter exists');
  assert.ok(!requests.some((u) => /rbm_playground-[\w-]+\.js/.test(u)), 'the GPU core is not loaded before it is used');
  await press(page, '#samplers .sampler-controls button');
  const arrived = (device, n) =>
    page.waitForFunction(
      ([device, n]) =>
        /stopped/.test(document.querySelector('#samplers .sampler-status')?.textContent ?? '') ||
        [...document.querySelectorAll('#samplers .sampler-stats')].every(
          (e) => e.dataset.device === device && Number(e.dataset.emitted ?? 0) >= n && e.dataset.isl,
        ),
      [device, n],
      { timeout: 240_000, polling: 250 },
    );
  await arrived('gpu', 10);
  assert.doesNotMatch(await page.textContent('#samplers .sampler-status'), /stopped/);
  assert.match(await page.textContent('#samplers .sampler-device'), /^Samples drawn on the GPU \(WebGPU: .+\)\.$/);
  assert.match(await page.textContent('#samplers .isl-device'), /samples drawn on the GPU \(WebGPU: /);
  for (const s of await page.$$eval('#samplers .sampler-stats', (els) => els.map((e) => ({ text: e.textContent, isl: Number(e.dataset.isl) })))) {
    assert.match(s.text, /^GPU · /);
    assert.ok(s.isl < 0 && s.isl > -784, `ISL ${s.isl} is a log-density of 784 binary pixels`);
  }
  assert.ok(
    requests.some((u) => /rbm_playground-[\w-]+\.js/.test(u)),
    'the GPU core was loaded for the samplers',
  );
  const inked = await page.$$eval('#samplers .sampler-strip', (cs) =>
    cs.map((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let dark = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] < 128) dark++;
      return dark;
    }),
  );
  assert.ok(
    inked.every((d) => d > 20),
    `strip ink ${inked}`,
  );

  // The GPU fails (a driver reset): the samplers start again on the CPU and say so.
  await page.evaluate(() => window.__rbm.loseSamplerGpu());
  await page.waitForFunction(() => document.querySelector('#samplers .sampler-device')?.dataset.fallback === 'true', null, { timeout: 60_000 });
  assert.match(
    await page.textContent('#samplers .sampler-device'),
    /^The GPU stopped \(.+\): the samplers start again on the CPU\. Samples drawn on the CPU \(wasm\)\.$/,
  );
  await arrived('cpu', 10);
  assert.doesNotMatch(await page.textContent('#samplers .sampler-status'), /stopped/);
  for (const t of await page.$$eval('#samplers .sampler-stats', (els) => els.map((e) => e.textContent))) assert.doesNotMatch(t, /GPU/);
  assert.equal(await page.textContent('#samplers .isl-device'), '');
  await press(page, '#samplers .sampler-controls button');
  assert.deepEqual(errors, []);
  await page.close();
});
