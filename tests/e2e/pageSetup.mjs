// Shared set-up of the end-to-end tests: a served page (the built www/dist under a sub-path,
// as a course site serves it), a browser, and a fresh page with its console errors and
// requests collected.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launch } from './browser.mjs';
import { serve } from './server.mjs';

export const dist = fileURLToPath(new URL('../../www/dist', import.meta.url));

/** Every lane has its configuration built and is at update 0 with its first point. */
export const SETTLED = () => window.__rbm.lanes().every((l) => !l.pending && l.status === 'ready' && l.atll.length === 1);

/** The built page served under `/course/rbm/` and a browser (`close()` ends both). */
export async function servePage() {
  assert.ok(existsSync(`${dist}/index.html`), 'www/dist is missing: run `npm run build` first');
  const server = await serve(dist, '/course/rbm/');
  const browser = await launch();
  return {
    server,
    browser,
    close: async () => {
      await browser?.close();
      await server?.close();
    },
  };
}

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

/** A fresh page at `url` (optionally at `viewport`), once its lanes are settled, with its
 * errors and every request it makes collected. */
export async function openPage(browser, url, viewport = null) {
  const { page, errors, requests } = await newPage(browser, viewport);
  await page.goto(url);
  await page.waitForFunction(() => window.__rbm?.ready, null, { timeout: 20_000 });
  await page.waitForFunction(SETTLED, null, { timeout: 20_000 });
  return { page, errors, requests };
}

/** Types into an input and commits it (as leaving the field does). */
export async function enter(page, selector, text) {
  await page.fill(selector, text);
  await page.dispatchEvent(selector, 'change');
}

/** The lanes as the page's test hook reports them. */
export const lanes = (page) => page.evaluate(() => window.__rbm.lanes());
