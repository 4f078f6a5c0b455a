// Measures the built page (www/dist) in headless Chromium: download sizes (raw and gzipped),
// first contentful paint, time until the lanes are ready, and the updates per second the
// first screen's lanes (CD-1 and PCD, 1000 chains) reach while training with exact evaluation
// every 100 updates (the page default). A measurement, not a test: the figures depend on the machine and its load.
//
//   npm run build && node scripts/measure-page.mjs [seconds=10] [every=100]
// (a large `every` shows the training speed without the exact evaluations)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { launch } from '../tests/e2e/browser.mjs';
import { serve } from '../tests/e2e/server.mjs';
import { root } from './lib/tools.mjs';

const seconds = Number(process.argv[2] || 10);
const every = process.argv[3];
const dist = join(root, 'www', 'dist');
const sizes = {};
for (const f of readdirSync(join(dist, 'assets')).concat(['index.html'])) {
  const path = f === 'index.html' ? join(dist, f) : join(dist, 'assets', f);
  const bytes = readFileSync(path);
  const kind = f.endsWith('.wasm') ? 'wasm' : f.endsWith('.js') ? 'js' : f.endsWith('.css') ? 'css' : 'html';
  sizes[kind] ??= { raw: 0, gzip: 0 };
  sizes[kind].raw += bytes.length;
  sizes[kind].gzip += gzipSync(bytes, { level: 9 }).length;
}
const kib = (x) => Math.round((x / 1024) * 10) / 10;

const server = await serve(dist);
const browser = await launch();
const page = await browser.context.newPage();
const t0 = Date.now();
await page.goto(server.url);
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
};
console.log(JSON.stringify(report, null, 2));
