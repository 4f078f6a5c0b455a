// Launches Debian's Chromium headless through playwright-core (no browser download).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'node:test';
import { chromium } from 'playwright-core';

/** Every page a test opened in a browser of `launch`, open until that test ends. */
const opened = new Set();

// A page a test leaves open would compute on (an MNIST lane trains to its stop, a GPU lane keeps
// SwiftShader busy) and slow every later test of the file: each test's pages close when it ends.
afterEach(async () => {
  const pages = [...opened];
  opened.clear();
  await Promise.all(pages.map((p) => p.close().catch(() => {})));
});

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** A fresh headless Chromium; `close()` also removes its profile directory. `webgpu`: with the
 * browser's WebGPU on (SwiftShader, Chromium's GPU on the CPU: right for correctness, not for
 * timings), which needs a page served from localhost. */
export async function launch({ webgpu = false } = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'rbm-e2e-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      ...(webgpu ? ['--enable-unsafe-webgpu'] : ['--disable-gpu']),
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  context.on('page', (page) => {
    opened.add(page);
    page.on('close', () => opened.delete(page));
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
