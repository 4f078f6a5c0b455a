// Measures the built page (www/dist) under many lanes from a link, in headless Chromium: with
// `#data=bas4` and N × `&lane=cd`, how long Pause takes to answer while every lane runs — from
// the click to the moment no lane is running any more (the Start button says so), and the
// slowest lane's reply — and how long a click waits for the page's thread meanwhile. A
// measurement, not a test (the e2e test asserts the behaviour; the figures depend on the
// machine and its load). Issue 31: a link may ask for up to 64 lanes.
//
//   npm run build && node scripts/measure-lanes.mjs [lanes=64] [seconds of training=5] [tries=3]
import { join } from 'node:path';
import { launch } from '../tests/e2e/browser.mjs';
import { serve } from '../tests/e2e/server.mjs';
import { root } from './lib/tools.mjs';

const lanes = Number(process.argv[2] || 64);
const seconds = Number(process.argv[3] || 5);
const tries = Number(process.argv[4] || 3);
/** Longest wait for a Pause's answer before it counts as none. */
const GIVE_UP_MS = 60_000;

const server = await serve(join(root, 'www', 'dist'));
const browser = await launch();
const page = await browser.context.newPage();
const hash = `#data=bas4${'&lane=cd'.repeat(lanes)}`;
const t0 = Date.now();
await page.goto(server.url + hash);
await page.waitForFunction((n) => window.__rbm?.ready && window.__rbm.lanes().length === n && window.__rbm.lanes().every((l) => l.status === 'ready'), lanes, {
  timeout: 300_000,
});
const readyMs = Date.now() - t0;
const concurrency = await page.evaluate(() => window.__rbm.turns?.() ?? null);

const pauses = [];
const clicks = [];
for (let i = 0; i < tries; i++) {
  await page.evaluate(() => document.querySelector('#run').click());
  await page.waitForFunction(() => window.__rbm.lanes().some((l) => l.status === 'running'), null, { timeout: GIVE_UP_MS });
  await page.waitForTimeout(seconds * 1000);
  // A click on the chart's axis while the lanes train: how long it waits for the page's thread.
  clicks.push(
    await page.evaluate(
      () =>
        new Promise((resolve) => {
          const input = document.querySelector('input[name="axis"]:not(:checked)');
          const t = performance.now();
          input.addEventListener('click', () => resolve(performance.now() - t), { once: true, capture: true });
          setTimeout(() => input.click(), 0);
        }),
    ),
  );
  pauses.push(
    await page.evaluate(async (giveUp) => {
      const running = () => window.__rbm.lanes().filter((l) => l.status === 'running');
      const ids = running().map((l) => l.id);
      const sent = performance.now();
      document.querySelector('#run').click();
      while (running().length && performance.now() - sent < giveUp) await new Promise((r) => setTimeout(r, 1));
      const answered = performance.now() - sent;
      const replies = window.__rbm
        .lanes()
        .filter((l) => ids.includes(l.id))
        .map((l) => l.pauseReply ?? Number.NaN);
      return { answered: running().length ? null : answered, slowest_lane_reply: Math.max(...replies), running_before: ids.length };
    }, GIVE_UP_MS),
  );
}
await browser.close();
await server.close();

const round = (x) => (x === null || !Number.isFinite(x) ? x : Math.round(x));
console.log(
  JSON.stringify(
    {
      lanes,
      lanes_ready_ms: readyMs,
      lanes_at_once: concurrency,
      click_wait_ms: clicks.map(round),
      pause_answered_ms: pauses.map((p) => round(p.answered)),
      slowest_lane_reply_ms: pauses.map((p) => round(p.slowest_lane_reply)),
      running_when_paused: pauses.map((p) => p.running_before),
    },
    null,
    1,
  ),
);
