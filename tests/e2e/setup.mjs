// The end-to-end tests' shared page set-up (page.test.mjs, papers.test.mjs): opening a fresh
// page with its console errors collected, reading the lanes through the test hook
// (window.__rbm), typing into inputs, waiting for updates, and running the `rbm` command line.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { launch } from './browser.mjs';
import { serve } from './server.mjs';

/** Every lane has its latest configuration built and is at update 0 with its first point. */
export const SETTLED = () => window.__rbm.lanes().every((l) => !l.pending && l.status === 'ready' && l.atll.length === 1);

/** A fresh page of `browser` at `url`, settled, with its console errors collected. */
export async function openPage(browser, url) {
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

export const lanes = (page) => page.evaluate(() => window.__rbm.lanes());
export const settings = (page) => page.evaluate(() => window.__rbm.settings());

/** Types into an input and commits it (as leaving the field does). */
export async function enter(page, selector, text) {
  await page.fill(selector, text);
  await page.dispatchEvent(selector, 'change');
}

/** Waits until every lane selected by `ids` has made at least `iter` updates. */
export async function waitForUpdates(page, iter, ids = null, timeout = 90_000) {
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

/** The `rbm` command line's JSON lines (built by `cargo test --release` in `npm test`; built
 * here if not). */
export function rbmCli(args) {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const bin = join(process.env.CARGO_TARGET_DIR || join(root, 'target'), 'release', 'rbm');
  if (!existsSync(bin)) execFileSync('cargo', ['build', '--release', '-p', 'rbm-cli'], { cwd: root, stdio: 'inherit' });
  return execFileSync(bin, args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 })
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

/** Serves www/dist under `path` and launches Chromium before the file's tests, closing both
 * after them: `{ server, browser }` once started. */
export function servePage(path = '/') {
  const env = { server: null, browser: null };
  const dist = fileURLToPath(new URL('../../www/dist', import.meta.url));
  before(async () => {
    assert.ok(existsSync(`${dist}/index.html`), 'www/dist is missing: run `npm run build` first');
    env.server = await serve(dist, path);
    env.browser = await launch();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.close();
  });
  return env;
}
