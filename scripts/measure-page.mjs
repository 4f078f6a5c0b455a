// Measures the built page (www/dist) in headless Chromium: download sizes (raw and gzipped),
// first contentful paint, time until the lanes are ready, and the updates per second the
// first screen's lanes (CD-1 and PCD, 1000 chains) reach while training with exact evaluation
// every 100 updates (the page default); then, while they train, how long a click waits for the
// page's thread and its long tasks, and how fast each lane answers Pause (the 200 ms:
// the slowest lane's reply, and an idle control worker's at the same moment, the machine's own
// delay). A measurement, not a test: the figures depend on the machine and its load (the e2e
// tests assert what is done, never how fast).
//
//   npm run build && node scripts/measure-page.mjs [seconds=10] [every=100] [hash]
// (a large `every` shows the training speed without the exact evaluations; a hash measures
// another set-up, e.g. '#data=mnist-test&hidden=500' for 784×500 lanes)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { launch } from '../tests/e2e/browser.mjs';
import { serve } from '../tests/e2e/server.mjs';
import { root } from './lib/tools.mjs';

const seconds = Number(process.argv[2] || 10);
const every = process.argv[3];
const hash = process.argv[4] ?? '';
const dist = join(root, 'www', 'dist');
const sizes = {};
// The page's own files (assets/generated/ holds the data assets a lane downloads on demand).
const files = readdirSync(join(dist, 'assets'), { withFileTypes: true })
  .filter((d) => d.isFile())
  .map((d) => d.name);
for (const f of files.concat(['index.html'])) {
  const path = f === 'index.html' ? join(dist, f) : join(dist, 'assets', f);
  const bytes = readFileSync(path);
  const kind = f.endsWith('.wasm') ? 'wasm' : f.endsWith('.js') ? 'js' : f.endsWith('.css') ? 'css' : 'html';
  sizes[kind] ??= { raw: 0, gzip: 0 };
  sizes[kind].raw += bytes.length;
  sizes[kind].gzip += gzipSync(bytes, { level: 9 }).length;
}
const kib = (x) => Math.round((x / 1024) * 10) / 10;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const server = await serve(dist);
const browser = await launch();
const page = await browser.context.newPage();
const t0 = Date.now();
await page.goto(server.url + hash);
await page.waitForFunction(() => window.__rbm?.ready && window.__rbm.lanes().every((l) => l.status === 'ready'));
const readyMs = Date.now() - t0;
const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null);
if (every) {
  await page.fill('#every', every);
  await page.dispatchEvent('#every', 'change');
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => !l.pending && l.status === 'ready' && l.atll.length === 1));
}
await page.click('#run');
await page.waitForTimeout(2000); // warm-up
const a = await page.evaluate(() => window.__rbm.lanes());
const ta = Date.now();
await page.waitForTimeout(seconds * 1000);
const b = await page.evaluate(() => window.__rbm.lanes());
const dt = (Date.now() - ta) / 1000;

// While the lanes train: six clicks on the chart's axis, each one's wait for the page's thread.
await page.evaluate(() => {
  window.__delays = [];
  document.addEventListener('click', (e) => window.__delays.push(performance.now() - e.timeStamp), true);
  window.__long = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__long.push(e.duration);
  }).observe({ type: 'longtask' });
});
for (let i = 0; i < 6; i++) {
  await page.click(`input[name="axis"][value="${i % 2 ? 'iter' : 'sweeps'}"]`);
  await page.waitForTimeout(120);
}
const { delays, long } = await page.evaluate(() => ({ delays: window.__delays, long: window.__long }));

// Pause, five times after 300 ms of training: the slowest lane's reply (from the page's message
// to the worker's answer, by their clocks) and an idle control worker's, pinged at the same moment.
const pauses = [];
for (let i = 0; i < 5; i++) {
  if (!(await page.evaluate(() => window.__rbm.running()))) await page.click('#run');
  await page.waitForFunction(() => window.__rbm.lanes().some((l) => l.status === 'running'));
  await page.waitForTimeout(300);
  pauses.push(
    await page.evaluate(async () => {
      window.__control ??= new Worker(URL.createObjectURL(new Blob(['onmessage = () => postMessage(performance.timeOrigin + performance.now());'])));
      const control = new Promise((resolve) => {
        window.__control.onmessage = (e) => resolve(e.data);
      });
      const running = () => window.__rbm.lanes().filter((l) => l.status === 'running');
      const ids = running().map((l) => l.id);
      const sent = performance.timeOrigin + performance.now();
      window.__control.postMessage(0);
      document.querySelector('#run').click();
      while (running().length) await new Promise((r) => setTimeout(r, 1));
      const replies = window.__rbm
        .lanes()
        .filter((l) => ids.includes(l.id))
        .map((l) => l.pauseReply ?? Number.NaN);
      return { reply: Math.max(...replies), machine: (await control) - sent };
    }),
  );
}
await browser.close();
await server.close();

const report = {
  sizes_kib: Object.fromEntries(Object.entries(sizes).map(([k, v]) => [k, { raw: kib(v.raw), gzip: kib(v.gzip) }])),
  total_gzip_kib: kib(Object.values(sizes).reduce((s, v) => s + v.gzip, 0)),
  first_contentful_paint_ms: fcp === null ? null : Math.round(fcp),
  lanes_ready_ms: readyMs,
  evaluate_every: Number(every || 100),
  updates_per_s: Object.fromEntries(b.map((l, i) => [l.algo, Math.round((l.iter - a[i].iter) / dt)])),
  worker_reported_rate: Object.fromEntries(b.map((l) => [l.algo, Math.round(l.rate)])),
  atll_after: Object.fromEntries(b.map((l) => [l.algo, { update: l.iters.at(-1), atll: l.atll.at(-1) }])),
  click_delay_ms: { median: Math.round(median(delays)), max: Math.round(Math.max(...delays)) },
  long_tasks_ms: long.map(Math.round),
  pause_reply_ms: pauses.map((p) => Math.round(p.reply)),
  pause_machine_ms: pauses.map((p) => Math.round(p.machine)),
};
console.log(JSON.stringify(report, null, 2));
