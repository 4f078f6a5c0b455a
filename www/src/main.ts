// The page's bootstrap: load the core's catalog, restore the state its URL holds, start one
// Web Worker per lane and draw. Every computation runs in the workers (worker.ts); the views
// are controls.ts, laneCard.ts and the panels (panels/index.ts).
import './style.css';
import init, { evaluateClaims, catalog as loadCatalog, samplerCatalog } from '../pkg/rbm_playground.js';
import { App } from './app';
import { assetPath } from './data';
import { poolSize } from './evalPool';
import type { Catalog, SamplerEntry, Verdict } from './generated/core';
import type { WorkerLike } from './lane';
import { laneName } from './laneCard';
import { Page } from './page';
import { mountSamplers } from './samplers/view';
import { installTestHook } from './testHook';
import { trialWorkers } from './trialPool';
import { decodeState } from './urlState';

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: name.endsWith('.csv') ? 'text/csv' : 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

const newWorker = (name: string): WorkerLike => new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name }) as unknown as WorkerLike;

async function boot(): Promise<void> {
  // The catalog is the core's (one small call); the lanes' work is all in their workers.
  await init();
  const catalog = loadCatalog() as Catalog;
  let page: Page | null = null;
  const app = new App(
    catalog,
    newWorker,
    { changed: () => page?.schedule(), download },
    {
      // Absolute, from the page's own address: workers resolve URLs against their script's.
      assetUrl: (asset) => new URL(assetPath(asset), document.baseURI).href,
      evalWorkers: poolSize(navigator.hardwareConcurrency),
      trialWorkers: trialWorkers(navigator.hardwareConcurrency),
      evaluateClaims: (preset, lr, bands, end, bound) => evaluateClaims(preset, lr, bands, end, bound ?? undefined) as Verdict[],
      release: (url) => URL.revokeObjectURL(url),
    },
  );
  page = new Page(app);
  const hook = installTestHook(app);
  const { state, notices } = decodeState(catalog, window.location.hash);
  app.notices = notices;
  app.load(state);
  page.render();
  // The sampler view loads nothing until it is opened.
  const samplers = document.getElementById('samplers') as HTMLDetailsElement | null;
  samplers?.addEventListener('toggle', () => {
    if (samplers.open && !samplers.dataset.mounted) {
      samplers.dataset.mounted = '1';
      mountSamplers(
        samplerCatalog() as SamplerEntry[],
        (asset) => new URL(assetPath(asset), document.baseURI).href,
        () =>
          app.lanes.map((l) => ({
            id: l.id,
            label: laneName(app, l),
            visible: app.dataset()?.m ?? 0,
            fetch: () => l.fetchModel(),
          })),
      );
    }
  });
  hook.ready = true;
  // A link edited by hand in the address bar: the page becomes what it says.
  window.addEventListener('hashchange', () => {
    const next = decodeState(app.linkCatalog(), window.location.hash);
    app.notices = next.notices;
    app.load(next.state);
  });
}

boot().catch((e: unknown) => {
  const notice = document.getElementById('notice');
  if (notice) {
    notice.hidden = false;
    notice.textContent = `The page could not start: ${e instanceof Error ? e.message : String(e)}`;
  }
});
