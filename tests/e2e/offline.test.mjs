// End-to-end tests of the one-file page (issue 10): www/dist/rbm-playground.html trains from
// file:// with no server and no request leaving it, and www/dist/index.html opened from disk
// says at once where to go instead of hanging on "loading…".
//
// Run: npm run test:e2e   (builds the page first), or node --test tests/e2e/offline.test.mjs
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { launch } from './browser.mjs';
import { dist, newPage as openNewPage } from './setup.mjs';

const offline = pathToFileURL(`${dist}/rbm-playground.html`).href;
let browser;

before(async () => {
  assert.ok(existsSync(`${dist}/rbm-playground.html`), 'www/dist/rbm-playground.html is missing: run `npm run build` first');
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

/** A page with its errors and every request (of the page and its workers) collected. */
const newPage = () => openNewPage(browser);

test('the offline file is one self-contained file that trains from file:// with no request leaving it', { timeout: 180_000 }, async () => {
  const size = statSync(`${dist}/rbm-playground.html`).size;
  assert.ok(size > 500_000 && size < 3_000_000, `size ${size}`);
  const { page, errors, requests } = await newPage();
  await page.goto(`${offline}#seed=3`);
  await page.waitForFunction(() => window.__rbm?.ready, null, { timeout: 30_000 });
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.status === 'ready' && l.atll.length === 1), null, { timeout: 30_000 });
  assert.equal(await page.evaluate(() => window.__rbm.settings().seed), 3);
  assert.ok(await page.isVisible('#intro'));
  // Styled: the style sheet is inside.
  assert.equal(await page.$eval('#run', (b) => getComputedStyle(b).backgroundColor), 'rgb(11, 92, 173)');
  await page.click('#run');
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => l.iter >= 400 && l.atll.length >= 5), null, { timeout: 90_000, polling: 200 });
  await page.click('#run');
  for (const lane of await page.evaluate(() => window.__rbm.lanes())) {
    assert.ok(lane.atll.every(Number.isFinite));
    assert.ok(lane.atll.at(-1) > lane.atll[0] + 0.3, `${lane.algo} rises`);
  }
  // Its views draw too (the wasm core's panels), once on screen.
  await page.locator('canvas.filters').first().scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector('canvas.filters')?.width > 0, null, { timeout: 20_000 });
  const away = requests.filter((u) => !u.startsWith('blob:') && !u.startsWith('data:') && u.split('#')[0] !== offline);
  assert.deepEqual(away, [], 'only the file itself and its own blobs');
  // MNIST is not inside: choosing it says what to do instead.
  assert.match(await page.$eval('#data option[value="mnist"]', (o) => o.textContent), /not in this offline file/);
  await page.selectOption('#data', 'mnist');
  // The lanes refuse it, so the page stays on the data they train on, saying why (issue 31).
  await page.waitForFunction(() => /not inside this offline file.*Your own data/.test(document.querySelector('#err-data').textContent), null, {
    timeout: 30_000,
  });
  // A refused data set never stays on screen (the picker follows in the next drawn frame).
  await page.waitForFunction(() => document.querySelector('#data').value !== 'mnist');
  // The user's own files work from disk too (their bytes go to the workers with the message).
  const n = 200; // at least the MNIST batch of 100 the lanes keep
  const pixels = new Uint8Array(n * 16);
  for (let k = 0; k < n; k++) for (let i = 0; i < 16; i++) if ((k % 2 ? Math.floor(i / 4) : i % 4) === k % 4) pixels[k * 16 + i] = 255;
  const head = Buffer.from([0, 0, 8, 3, 0, 0, 0, n, 0, 0, 0, 4, 0, 0, 0, 4]);
  await page.setInputFiles('#data-files', [{ name: 'bars4-idx3-ubyte.gz', mimeType: 'application/gzip', buffer: gzipSync(Buffer.concat([head, pixels])) }]);
  await page.waitForFunction(() => window.__rbm.settings().data === 'bars4', null, { timeout: 30_000 });
  await page.waitForFunction(() => window.__rbm.lanes().every((l) => !l.pending && l.status === 'ready' && !l.rejection && l.atll.length === 1), null, {
    timeout: 60_000,
  });
  assert.equal(await page.textContent('#err-data'), '');
  assert.deepEqual(
    errors.filter((e) => !/not inside this offline file/.test(e)),
    [],
  );
  await page.close();
});

test('index.html opened from disk says at once to open the offline file, which then runs', { timeout: 120_000 }, async () => {
  const { page } = await newPage();
  await page.goto(pathToFileURL(`${dist}/index.html`).href);
  await page.waitForSelector('#notice:not([hidden])', { timeout: 5_000 });
  const text = await page.textContent('#notice');
  assert.match(text, /does not run from a file on disk/);
  assert.match(text, /rbm-playground\.html/);
  await page.click('#notice a[href="rbm-playground.html"]');
  await page.waitForFunction(() => window.__rbm?.ready, null, { timeout: 30_000 });
  assert.equal(await page.isVisible('#notice'), false);
  await page.close();
});
