// End-to-end tests of a small-data study's GPU job (issue 30: "a study's trials run as one
// batched GPU job"), with the browser's WebGPU on (SwiftShader: correctness, not speed). In a
// browser of their own: gpu.test.mjs's tests destroy GPU devices on purpose, and a browser that
// lost one may not give later pages a ready GPU.
//
// Run: npm run test:e2e   (builds the page first), or node --test tests/e2e/gpujob.test.mjs
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newPage, SETTLED, startServer } from './setup.mjs';

let gpu;

before(async () => {
  gpu = await startServer('/', { webgpu: true });
});

after(async () => {
  await gpu?.close();
});

/** Clicks `selector` from the page's script (SwiftShader's GPU work shares the machine with the
 * compositor, so a pointer click can wait long on a busy one). */
const press = (page, selector) => page.evaluate((sel) => document.querySelector(sel).click(), selector);

// A small-data study with the GPU chosen (issue 30: "a study's trials run as one batched GPU
// job"): the trials of every lane of sdcp-bas3 train together as one job in one worker. Tiny for
// SwiftShader: 2 trials of 200 updates, checkpoints every 100. Its bands are drawn, its trials
// say GPU, its line says how many trials of how many lanes trained as one GPU job — and its
// update-0 checkpoint is the CPU study's (the seed's starting model, measured on the host in f64).
const JOB_STUDY = 'preset=sdcp-bas3&trials=2&stop=200&every=100&seed=3';

/** Opens `hash` with the lanes on the CPU (they settle at once; built on SwiftShader they take
 * minutes on a busy machine) and picks `compute` in Compute, as a user would before Start. */
async function openSmall(env, hash, compute) {
  // The preset's ten live lanes settle their first exact points on the CPU, taking turns: longer
  // than openPage's 20 s on a loaded two-core machine.
  const { page, errors } = await newPage(env.browser);
  await page.goto(`${env.server.url}#${hash}&compute=cpu`);
  await page.waitForFunction(() => window.__rbm?.ready, null, { timeout: 60_000 });
  await page.waitForFunction(SETTLED, null, { timeout: 120_000, polling: 250 });
  if (compute !== 'cpu') {
    await page.selectOption('#compute', compute);
    await page.waitForFunction((c) => window.__rbm.state().compute === c, compute);
  }
  return { page, errors };
}

/** Waits up to `ms` for the study's job line to match `re`; on time out, fails with what the
 * line, the device line and the trials said instead. */
async function waitForLine(page, re, ms) {
  try {
    await page.waitForFunction((src) => new RegExp(src).test(document.querySelector('#study-ais')?.textContent ?? ''), re.source, {
      timeout: ms,
      polling: 50,
    });
  } catch (e) {
    const seen = await page.evaluate(() => ({
      line: document.querySelector('#study-ais')?.textContent,
      device: document.querySelector('#study-device')?.textContent,
      trials: window.__rbm.study()?.lanes.map((l) => l.trials.map((t) => `${l.label}#${t.index} ${t.state} ${t.gpu ?? 'cpu'} [${t.iters}] ${t.message ?? ''}`)),
    }));
    assert.fail(`the job line did not match ${re} within ${ms} ms (${e.message}): ${JSON.stringify(seen)}`);
  }
}

/** Runs JOB_STUDY on `env`'s browser under `compute` to its end: the study snapshot, the job
 * line and the device line. */
async function jobStudy(env, compute) {
  const { page, errors } = await openSmall(env, JOB_STUDY, compute);
  await press(page, '#run');
  await page.waitForFunction(() => window.__rbm.study()?.status === 'done', null, { timeout: 240_000, polling: 250 });
  await page.waitForFunction(() => window.__rbm.drawn());
  // The job's line is drawn in a frame after its last points.
  if (compute === 'gpu') await waitForLine(page, /update 200 of 200\./, 30_000);
  const study = await page.evaluate(() => window.__rbm.study());
  const line = (await page.isHidden('#study-ais')) ? null : await page.textContent('#study-ais');
  const device = (await page.isHidden('#study-device')) ? null : await page.textContent('#study-device');
  assert.deepEqual(errors, []);
  await page.close();
  return { study, line, device };
}

test("a small-data study on the GPU trains its lanes' trials as one GPU job, says so, and starts from the CPU study's checkpoint", {
  timeout: 600_000,
}, async () => {
  const gpuRun = await jobStudy(gpu, 'gpu');
  const lanesRun = gpuRun.study.lanes;
  const trials = lanesRun.reduce((a, l) => a + l.trials.length, 0);
  assert.match(gpuRun.line ?? '', new RegExp(`^${trials} trials of ${lanesRun.length} lanes train together as one GPU job on .+, update 200 of 200\\.$`));
  assert.match(gpuRun.device ?? '', /^Device: GPU \(WebGPU, f32\): /);
  for (const l of lanesRun) {
    for (const t of l.trials) {
      assert.equal(t.state, 'done', `${l.label} trial ${t.index}: ${t.message}`);
      assert.ok(t.gpu, `${l.label} trial ${t.index} ran on the GPU`);
      assert.deepEqual(t.iters, [0, 100, 200]);
      assert.ok(
        t.atll.every((a) => Number.isFinite(a) && a < 0),
        `${l.label} ATLL ${t.atll}`,
      );
    }
    assert.ok(
      l.bands.every((b) => b && b.trials === 2 && Number.isFinite(b.median)),
      `${l.label} bands: ${JSON.stringify(l.bands)}`,
    );
  }
  const cpuRun = await jobStudy(gpu, 'cpu');
  assert.equal(cpuRun.line, null, 'a CPU study has no job');
  for (const [i, l] of lanesRun.entries()) {
    const cpu = cpuRun.study.lanes[i];
    for (const t of l.trials) {
      const c = cpu.trials[t.index];
      assert.equal(t.atll[0], c.atll[0], `${l.label} trial ${t.index}: update 0's ATLL is the CPU study's`);
      assert.deepEqual(t.stats[0], c.stats[0], `${l.label} trial ${t.index}: update 0's statistics`);
    }
  }
});

test("a study's GPU job that loses its GPU gives its trials back to the CPU from update 0, saying why, and the study ends", {
  timeout: 300_000,
}, async () => {
  const { page, errors } = await openSmall(gpu, 'preset=sdcp-bas3&trials=2&stop=20000&every=10000&seed=3', 'gpu');
  await press(page, '#run');
  // Once the job has started (its line is up), its GPU fails (a driver reset) — long before its
  // 20 000 updates are done on SwiftShader.
  await waitForLine(page, /train together as one GPU job/, 120_000);
  assert.equal(await page.evaluate(() => window.__rbm.loseStudyJobGpu()), true);
  await page.waitForFunction(() => window.__rbm.study()?.status === 'done', null, { timeout: 240_000, polling: 250 });
  const study = await page.evaluate(() => window.__rbm.study());
  for (const l of study.lanes)
    for (const t of l.trials) {
      assert.equal(t.state, 'done', `${l.label} trial ${t.index}: ${t.message}`);
      assert.equal(t.gpu, null, `${l.label} trial ${t.index} ran again on the CPU`);
      assert.deepEqual(t.iters, [0, 10000, 20000]);
    }
  // The lines are drawn in the next frame.
  await waitForLine(page, /^GPU job: /, 30_000);
  assert.match(await page.textContent('#study-ais'), /^GPU job: .+; its trials run again on the CPU, trial by trial\.$/);
  assert.match(await page.textContent('#study-device'), /The GPU job stopped \(.+\): its trials run again on the CPU from update 0\./);
  assert.deepEqual(errors, []);
});

test("a ucd-bas4 study on the GPU trains the lanes a job takes as one job and UCD's trial by trial, saying why", { timeout: 300_000 }, async () => {
  const { page, errors } = await openSmall(gpu, 'preset=ucd-bas4&trials=1&stop=100&every=100&seed=2', 'gpu');
  await press(page, '#run');
  await page.waitForFunction(() => window.__rbm.study()?.status === 'done', null, { timeout: 240_000, polling: 250 });
  await page.waitForFunction(() => window.__rbm.drawn());
  const study = await page.evaluate(() => window.__rbm.study());
  const line = await page.textContent('#study-ais');
  const ucd = study.lanes.filter((l) => /UCD/.test(l.label));
  const others = study.lanes.filter((l) => !/UCD/.test(l.label));
  assert.ok(ucd.length > 0 && others.length > 0, study.lanes.map((l) => l.label).join(', '));
  assert.match(line, new RegExp(`^${others.length} trials? of ${others.length} lanes? train together as one GPU job on .+\\. Trial by trial instead: .*UCD`));
  for (const l of study.lanes)
    for (const t of l.trials) {
      assert.equal(t.state, 'done', `${l.label}: ${t.message}`);
      assert.deepEqual(t.iters, [0, 100]);
    }
  for (const l of others)
    assert.ok(
      l.trials.every((t) => t.gpu),
      `${l.label} on the GPU job`,
    );
  for (const l of ucd)
    assert.ok(
      l.trials.every((t) => t.gpu === null),
      `${l.label} on the CPU`,
    );
  assert.deepEqual(errors, []);
});
