// The end-to-end tests' shared set-up: the built page served (at the root, or under a sub-path
// as a course site serves it) with a browser, a fresh page with its errors (of the page and its
// workers) and requests collected, reading the lanes through the test hook (window.__rbm),
// typing into inputs, waiting for updates, and running the `rbm` command line.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { launch } from './browser.mjs';
import { serve } from './server.mjs';

/** Every lane has its latest configuration built and is at update 0 with its first point, and the
 * page has drawn it (it draws in the next animation frame: reading the DOM sooner races the draw). */
export const SETTLED = () => window.__rbm.lanes().every((l) => !l.pending && l.status === 'ready' && l.atll.length === 1) && window.__rbm.drawn();

/** The built page. */
export const dist = fileURLToPath(new URL('../../www/dist', import.meta.url));

/** A new page (optionally at `viewport`) with its errors (of the page and its workers) and
 * every request it makes collected. */
export async function newPage(browser, viewport = null) {
  const page = await browser.context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  const errors = [];
  const requests = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => requests.push(r.url()));
  page.on('worker', (w) => w.on('console', (m) => m.type() === 'error' && errors.push(m.text())));
  return { page, errors, requests };
}

/** A fresh page of `browser` at `url` (optionally at `viewport`), once its lanes are settled,
 * with its errors and every request it makes collected. */
export async function openPage(browser, url, viewport = null) {
  const { page, errors, requests } = await newPage(browser, viewport);
  await page.goto(url);
  await page.waitForFunction(() => window.__rbm?.ready, null, { timeout: 20_000 });
  await page.waitForFunction(SETTLED, null, { timeout: 20_000 });
  return { page, errors, requests };
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

/** Serves www/dist under `path` and launches Chromium (`options`: `launch`'s):
 * `{ server, browser, close }`. */
export async function startServer(path = '/', options = {}) {
  assert.ok(existsSync(`${dist}/index.html`), 'www/dist is missing: run `npm run build` first');
  const server = await serve(dist, path);
  const browser = await launch(options);
  return {
    server,
    browser,
    close: async () => {
      await browser?.close();
      await server?.close();
    },
  };
}

/** `startServer` before the file's tests, closing both after them: `{ server, browser }`
 * once started. */
export function servePage(path = '/', options = {}) {
  const env = { server: null, browser: null, close: null };
  before(async () => Object.assign(env, await startServer(path, options)));
  after(async () => env.close?.());
  return env;
}
