// Launches Debian's Chromium headless through playwright-core (no browser download).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

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
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
