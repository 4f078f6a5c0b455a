// Measures a whole preset study in the built page (www/dist) in headless Chromium: the wall
// time from Start until every trial of every lane is done, with the page's own trial pool (as
// many workers as the browser reports cores). Issue 11's goal is the `ucd-bas4` preset at its
// 25 trials in at most 3 minutes on a 2-core machine. A measurement, not a test: the figure
// depends on the machine and its load.
//
//   npm run build && node scripts/measure-study.mjs [preset=ucd-bas4] [trials=the preset's] [rate index=0]

import { join } from 'node:path';
import { launch } from '../tests/e2e/browser.mjs';
import { serve } from '../tests/e2e/server.mjs';
import { root } from './lib/tools.mjs';

const preset = process.argv[2] || 'ucd-bas4';
const trials = process.argv[3];
const rate = Number(process.argv[4] || 0);

const server = await serve(join(root, 'www', 'dist'));
const browser = await launch();
const page = await browser.context.newPage();
await page.goto(server.url);
await page.waitForFunction(() => window.__rbm?.ready);
await page.selectOption('#preset', preset);
const settled = () => {
  const lanes = window.__rbm.lanes();
  return lanes.length > 0 && lanes.every((l) => !l.pending && l.status === 'ready');
};
await page.waitForFunction(settled, null, { timeout: 60_000 });
if (rate) {
  await page.selectOption('#rate', String(rate));
  await page.waitForFunction(settled, null, { timeout: 60_000 });
}
if (trials) {
  await page.fill('#trials', trials);
  await page.dispatchEvent('#trials', 'change');
  await page.waitForFunction(settled, null, { timeout: 60_000 });
}
const t0 = Date.now();
await page.click('#run');
let last = '';
for (;;) {
  const s = await page.evaluate(() => {
    const st = window.__rbm.study();
    return st && { status: st.status, ...st.progress };
  });
  if (s?.status === 'done') break;
  if (s && (s.failed > 0 || s.status === 'error')) throw new Error(`the study failed: ${JSON.stringify(s)}`);
  const line = s ? `${s.done} of ${s.total} trials done, ${s.running} running` : 'starting';
  if (line !== last) {
    process.stderr.write(`${Math.round((Date.now() - t0) / 1000)} s: ${line}\n`);
    last = line;
  }
  await page.waitForTimeout(1000);
}
const secs = (Date.now() - t0) / 1000;
const info = await page.evaluate(() => {
  const st = window.__rbm.study();
  // Gibbs sweeps per lane at the end, summed over its trials: the work each lane's law asks for.
  const sweeps = Object.fromEntries(st.lanes.map((l) => [l.label, l.trials.reduce((s, t) => s + (t.sweeps.at(-1) ?? 0), 0)]));
  return {
    url: window.location.href,
    workers: st.workers,
    study_elapsed_s: Math.round(st.elapsedMs / 100) / 10,
    sweeps,
    progress: document.querySelector('#study-progress')?.textContent,
  };
});
await browser.close();
await server.close();
console.log(JSON.stringify({ preset, trials: trials ?? "the preset's", seconds: Math.round(secs * 10) / 10, ...info }, null, 2));
