// The page's bootstrap: load the core's catalog, restore the state its URL holds, start one
// Web Worker per lane and draw. Every computation runs in the workers (worker.ts); the views
// are controls.ts, laneCard.ts and the panels (views/panels/index.ts).
import './style.css';
import init, { evaluateClaims, exploreJudge, explorePlan, catalog as loadCatalog, samplerCatalog } from '../pkg/rbm_playground.js';
import { App } from './app/app';
import { parts } from './app/classroom';
import type { WorkerLike } from './app/lane';
import { installTestHook } from './app/testHook';
import { readTours, TOUR_TARGETS } from './app/tour';
import { lanesAtOnce } from './app/turns';
import { decodeState, decodeView } from './app/urlState';
import type { Catalog, ExplorePlan, ExploreVerdict, SamplerEntry, Verdict } from './generated/core';
import { assetPath } from './protocol/data';
import { GlossaryView } from './views/glossaryView';
import { laneName } from './views/laneCard';
import { Page } from './views/page';
import { PANELS } from './views/panels';
import { PatternsView } from './views/patternsView';
import { mountSamplers } from './views/samplers';
import { ShareView } from './views/shareView';
import { TourView } from './views/tourView';
import { poolSize } from './workers/evalPool';
import { trialWorkers } from './workers/trialPool';
import { watched } from './workers/workerHealth';

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: name.endsWith('.csv') ? 'text/csv' : 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

const newWorker = (name: string): WorkerLike => new Worker(new URL('./workers/worker.ts', import.meta.url), { type: 'module', name }) as unknown as WorkerLike;

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
      lanesAtOnce: lanesAtOnce(navigator.hardwareConcurrency),
      watchedWorkers: watched(newWorker),
      evaluateClaims: (preset, lr, bands, end, bound) => evaluateClaims(preset, lr, bands, end, bound ?? undefined) as Verdict[],
      explorer: {
        plan: (preset, request, workers) => explorePlan(preset, request, workers) as ExplorePlan,
        judge: (preset, bands, end) => exploreJudge(preset, bands, end) as ExploreVerdict[],
      },
      release: (url) => URL.revokeObjectURL(url),
      confirm: (question) => window.confirm(question),
    },
  );
  page = new Page(app);
  const hook = installTestHook(app, () => page?.drawn() ?? false);
  const known = new Set(parts(catalog, PANELS).map((p) => p.key));
  // The guided tours: every file of www/tours/ (tour.ts); a file with a problem is left out.
  const tourFiles = import.meta.glob('../tours/*.json', { eager: true, import: 'default' });
  const { tours, problems } = readTours(tourFiles, catalog, new Set([...known, ...TOUR_TARGETS]));
  for (const p of problems) console.warn(`guided tour left out: ${p}`);
  const tourIds = tours.map((t) => t.id);
  /** The page as a hash says: the experiment, and how it is shown (classroom.ts). */
  const fromHash = (c: Catalog) => {
    const { state, notices } = decodeState(c, window.location.hash);
    const view = decodeView(window.location.hash, known, tourIds);
    app.notices = [...notices, ...view.notices];
    app.view = view.view;
    app.load(state);
  };
  fromHash(catalog);
  new GlossaryView();
  new PatternsView(app);
  new ShareView(
    app,
    () => page?.classroom.hidden() ?? new Set(),
    tours.map((t) => ({ id: t.id, title: t.title })),
  );
  const tourView = new TourView(app, tours, () => page?.render());
  page.onRender.push(() => tourView.update());
  page.render();
  // The sampler view loads nothing until it is opened.
  const samplers = document.getElementById('samplers') as HTMLDetailsElement | null;
  samplers?.addEventListener('toggle', () => {
    if (samplers.open && !samplers.dataset.mounted) {
      samplers.dataset.mounted = '1';
      const view = mountSamplers(
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
      hook.loseSamplerGpu = () => view.loseGpuForTest();
    }
  });
  if (app.view.tour) tourView.start(app.view.tour);
  hook.ready = true;
  // A link edited by hand in the address bar: the page becomes what it says.
  window.addEventListener('hashchange', () => {
    // A jump to an element (the skip link's #controls) is not a state: put the state back.
    if (!window.location.hash.includes('=')) {
      page?.render();
      return;
    }
    fromHash(app.linkCatalog());
  });
}

boot().catch((e: unknown) => {
  const notice = document.getElementById('notice');
  if (notice) {
    notice.hidden = false;
    notice.textContent = `The page could not start: ${e instanceof Error ? e.message : String(e)}`;
  }
});
