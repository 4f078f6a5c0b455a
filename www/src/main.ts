// The page: input handling and drawing only. Every computation runs in one Web Worker per lane.
import './style.css';
import { LikelihoodChart } from './chart';
import { AXIS_LABEL, laneColour, type Axis } from './chartData';
import { drawChains, drawDistribution, drawFilters } from './draw';
import type { FromWorker, ToWorker } from './protocol';
import { missingNote, presetDescription, presetPlan, rateLabel, type PlannedLane } from './presets';
import {
  FIRST_LANES, FIRST_SETTINGS, appendPoints, emptyCurve, formatRate, formatStat, laneConfig,
  newLane, optionInfo, parseOption, parseSettings, sweepsPerUpdate, type Lane, type Settings,
} from './state';
import type { Catalog, DataSetInfo, PresetInfo } from './types';

const $ = <T extends HTMLElement>(sel: string, root: ParentNode = document): T => root.querySelector<T>(sel)!;

const app = {
  settings: { ...FIRST_SETTINGS } as Settings,
  catalog: null as Catalog | null,
  lanes: [] as Lane[],
  running: false,
  axis: 'iter' as Axis,
  nextId: 0,
  /** The paper's experiment the page was last set up as (null: the first screen). */
  preset: null as PresetInfo | null,
};
const workers = new Map<number, Worker>();
const panels = new Map<number, HTMLElement>();
const drawn = new Map<number, unknown>();
const chart = new LikelihoodChart($('#chart'));

const settingInputs = {
  dataset: $<HTMLSelectElement>('#dataset'),
  hidden: $<HTMLInputElement>('#hidden'),
  seed: $<HTMLInputElement>('#seed'),
  init: $<HTMLSelectElement>('#init'),
  every: $<HTMLInputElement>('#every'),
  stop: $<HTMLInputElement>('#stop'),
};
const presetSelect = $<HTMLSelectElement>('#preset');
const rateSelect = $<HTMLSelectElement>('#preset-rate');
const presetNote = $('#preset-note');
const presetMissing = $('#preset-missing');
const runButton = $<HTMLButtonElement>('#run');
const resetButton = $<HTMLButtonElement>('#reset');
const addSelect = $<HTMLSelectElement>('#add-algo');
const addButton = $<HTMLButtonElement>('#add');
const lanesEl = $('#lanes');

function dataset(): DataSetInfo | undefined {
  return app.catalog?.dataSets.find((d) => d.name === app.settings.dataset);
}

function algoInfo(name: string) {
  return app.catalog?.algorithms.find((a) => a.name === name);
}

function post(lane: Lane, msg: ToWorker): void {
  workers.get(lane.id)?.postMessage(msg);
}

// ---- lanes -------------------------------------------------------------------------------

function addLane(algo: string, planned?: PlannedLane): Lane {
  const id = planned ? planned.index : app.nextId;
  app.nextId = Math.max(app.nextId, id + 1);
  const lane = newLane(id, algo, app.catalog, planned);
  app.lanes.push(lane);
  const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: `lane ${lane.id} (${algo})` });
  worker.onmessage = (e: MessageEvent<FromWorker>) => onWorker(lane, e.data);
  worker.onerror = (e) => {
    lane.status = 'broken';
    lane.message = `the lane's worker failed: ${e.message || 'unknown error'}`;
    schedule();
  };
  workers.set(lane.id, worker);
  worker.postMessage({ type: 'limit', until: app.settings.stop } satisfies ToWorker);
  buildPanel(lane);
  if (app.catalog) configure(lane);
  schedule();
  return lane;
}

function dropLane(lane: Lane): void {
  workers.get(lane.id)?.terminate();
  workers.delete(lane.id);
  panels.get(lane.id)?.remove();
  panels.delete(lane.id);
  drawn.delete(lane.id);
  app.lanes = app.lanes.filter((l) => l !== lane);
  schedule();
}

function removeLane(lane: Lane): void {
  dropLane(lane);
  addSelect.focus();
}

function configure(lane: Lane, field?: string): void {
  const r = laneConfig(app.settings, lane);
  if ('errors' in r) {
    lane.fieldErrors = r.errors;
    schedule();
    return;
  }
  post(lane, { type: 'configure', config: r.config, dataset: app.settings.dataset, field });
}

function onWorker(lane: Lane, msg: FromWorker): void {
  switch (msg.type) {
    case 'ready':
      if (!app.catalog) onCatalog(msg.catalog);
      break;
    case 'configured':
      lane.curve = emptyCurve();
      lane.iter = 0;
      lane.rate = 0;
      lane.stats = {};
      lane.view = null;
      lane.seed = msg.seed;
      lane.message = null;
      lane.status = app.running ? 'running' : 'ready';
      if (msg.field) {
        delete lane.fieldErrors[msg.field];
        clearSettingError(msg.field);
      }
      if (app.running) post(lane, { type: 'start' });
      break;
    case 'rejected':
      if (msg.field?.startsWith('settings.')) showSettingError(msg.field, msg.message);
      else if (msg.field) lane.fieldErrors[msg.field] = `${msg.message} (not applied)`;
      else lane.message = msg.message;
      if (lane.status === 'loading') lane.status = 'broken';
      break;
    case 'progress':
      appendPoints(lane.curve, msg.points);
      lane.iter = msg.iter;
      if (msg.rate > 0) lane.rate = msg.rate;
      if (msg.stats && Object.keys(msg.stats).length) lane.stats = msg.stats;
      if (msg.view) lane.view = msg.view;
      break;
    case 'state':
      if (lane.status !== 'failed' && lane.status !== 'broken') lane.status = msg.running ? 'running' : msg.done ? 'done' : 'paused';
      // Every lane at its end (or stopped): the page is no longer running.
      if (msg.done && app.lanes.every((l) => ['done', 'failed', 'broken'].includes(l.status))) app.running = false;
      break;
    case 'failed':
      lane.status = 'failed';
      lane.message = msg.message;
      break;
    case 'model':
      download(`rbm-${lane.algo}-seed${lane.seed}-update${lane.iter}.json`, msg.json);
      break;
    case 'fatal':
      lane.status = 'broken';
      lane.message = msg.message;
      break;
  }
  schedule();
}

function onCatalog(catalog: Catalog): void {
  app.catalog = catalog;
  settingInputs.dataset.replaceChildren(
    ...catalog.dataSets.map((d) => new Option(`${d.description}`, d.name, false, d.name === app.settings.dataset)),
  );
  addSelect.replaceChildren(...catalog.algorithms.map((a) => new Option(`${a.title} — ${a.paper}`, a.name)));
  addSelect.disabled = addButton.disabled = false;
  presetSelect.append(...catalog.presets.map((p) => new Option(`${p.title} — ${p.paper}`, p.name)));
  presetSelect.disabled = false;
  for (const lane of app.lanes) {
    lane.inputs = newLane(lane.id, lane.algo, catalog).inputs;
    buildPanel(lane);
    configure(lane);
  }
  (window as unknown as { __rbm: { ready: boolean } }).__rbm.ready = true;
}

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// ---- controls ----------------------------------------------------------------------------

function setRunning(running: boolean): void {
  app.running = running;
  for (const lane of app.lanes) post(lane, { type: running ? 'start' : 'pause' });
  schedule();
}

function reset(): void {
  setRunning(false);
  for (const lane of app.lanes) post(lane, { type: 'reset' });
}

function showSettingError(field: string, message: string): void {
  const el = document.getElementById(`err-${field.replace('settings.', '')}`);
  if (el) el.textContent = message;
}

function clearSettingError(field: string): void {
  if (field.startsWith('settings.')) showSettingError(field, '');
}

function onSettingChange(key: keyof Settings): void {
  const text = Object.fromEntries(Object.entries(settingInputs).map(([k, el]) => [k, el.value])) as Record<keyof Settings, string>;
  const r = parseSettings(text);
  for (const k of Object.keys(settingInputs)) showSettingError(`settings.${k}`, '');
  if ('errors' in r) {
    for (const [k, m] of Object.entries(r.errors)) showSettingError(`settings.${k}`, m);
    return;
  }
  app.settings = r.settings;
  // The end point does not change a lane: the lanes only learn where to pause.
  if (key === 'stop') for (const lane of app.lanes) post(lane, { type: 'limit', until: app.settings.stop });
  else for (const lane of app.lanes) configure(lane, `settings.${key}`);
}

function showSettings(s: Settings): void {
  settingInputs.dataset.value = s.dataset;
  settingInputs.hidden.value = String(s.hidden);
  settingInputs.seed.value = String(s.seed);
  settingInputs.init.value = s.init;
  settingInputs.every.value = String(s.every);
  settingInputs.stop.value = s.stop === null ? '' : String(s.stop);
  for (const k of Object.keys(settingInputs)) showSettingError(`settings.${k}`, '');
}

function setAxis(axis: Axis): void {
  app.axis = axis;
  for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="axis"]')) radio.checked = radio.value === axis;
}

/** Replaces every lane: the page becomes the paper's experiment `name` at its rate `rateIndex`, or the first screen. */
function applyPreset(name: string, rateIndex = 0): void {
  setRunning(false);
  for (const lane of [...app.lanes]) dropLane(lane);
  app.nextId = 0;
  const p = app.catalog?.presets.find((x) => x.name === name) ?? null;
  app.preset = p;
  rateSelect.replaceChildren(...(p?.rates ?? []).map((_, i) => new Option(rateLabel(p!, i), String(i), false, i === rateIndex)));
  rateSelect.disabled = !p;
  if (!p || !app.catalog) {
    app.settings = { ...FIRST_SETTINGS, seed: app.settings.seed };
    showSettings(app.settings);
    presetNote.textContent = presetMissing.textContent = '';
    setAxis('iter');
    for (const algo of FIRST_LANES) addLane(algo);
    return;
  }
  const plan = presetPlan(p, app.catalog, rateIndex, app.settings.seed);
  app.settings = plan.settings;
  showSettings(app.settings);
  presetNote.textContent = presetDescription(p);
  presetMissing.textContent = missingNote(plan.missing);
  // Equal compute: the x axis counts Gibbs sweeps, so a lane that spends more per update shows it.
  setAxis('sweeps');
  for (const planned of plan.lanes) addLane(planned.algo, planned);
}

/** A preset's other learning rate: every lane's η changes, nothing else. */
function applyRate(rateIndex: number): void {
  const p = app.preset;
  if (!p) return;
  const lr = String(p.rates[rateIndex]);
  for (const lane of app.lanes) {
    lane.inputs.lr = lr;
    delete lane.fieldErrors.lr;
    buildPanel(lane);
    configure(lane, 'lr');
  }
  schedule();
}

runButton.addEventListener('click', () => setRunning(!app.running));
resetButton.addEventListener('click', reset);
addButton.addEventListener('click', () => {
  const lane = addLane(addSelect.value);
  panels.get(lane.id)?.querySelector<HTMLElement>('h3')?.focus();
});
for (const key of Object.keys(settingInputs) as (keyof Settings)[]) {
  settingInputs[key].addEventListener('change', () => onSettingChange(key));
}
presetSelect.addEventListener('change', () => applyPreset(presetSelect.value));
rateSelect.addEventListener('change', () => applyRate(Number(rateSelect.value)));
for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="axis"]')) {
  radio.addEventListener('change', () => {
    app.axis = radio.value as Axis;
    schedule();
  });
}
document.addEventListener('keydown', (e) => {
  const t = e.target as HTMLElement;
  if (e.ctrlKey || e.metaKey || e.altKey || ['INPUT', 'SELECT', 'TEXTAREA'].includes(t.tagName) || t.isContentEditable) return;
  if (e.key === 's') setRunning(!app.running);
  else if (e.key === 'r') reset();
});
window.addEventListener('resize', () => {
  chart.resize();
  drawn.clear();
  schedule();
});

// ---- lane panels ---------------------------------------------------------------------------

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Record<string, unknown> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = Object.assign(document.createElement(tag), props) as HTMLElementTagNameMap[K];
  e.append(...children);
  return e;
}

/** The lane's name: the paper's label when a preset made it, else the algorithm's title. */
function laneName(lane: Lane): string {
  return lane.label ?? algoInfo(lane.algo)?.title ?? lane.algo;
}

function buildPanel(lane: Lane): void {
  const info = algoInfo(lane.algo);
  const pid = `lane-${lane.id}`;
  const sub = lane.label ? `${info?.title ?? lane.algo} — ${info?.paper ?? ''}` : info?.paper ?? '';
  const title = el('h3', { id: `${pid}-title`, tabIndex: -1 }, laneName(lane), ' ', el('small', {}, sub));
  const swatch = el('span', { className: 'swatch', ariaHidden: 'true' });
  swatch.style.background = laneColour(lane.id);
  const remove = el('button', { className: 'remove', type: 'button', title: 'Remove this lane', textContent: '✕' });
  remove.setAttribute('aria-label', `Remove lane ${laneName(lane)}`);
  remove.addEventListener('click', () => removeLane(lane));

  const options = el('div', { className: 'options' });
  for (const key of Object.keys(lane.inputs)) {
    const oi = optionInfo(key);
    const id = `${pid}-${key}`;
    const input = el('input', { id, name: key, type: 'text', inputMode: oi.kind === 'int' ? 'numeric' : 'decimal', value: lane.inputs[key] });
    if (oi.optional) input.placeholder = 'default';
    input.setAttribute('aria-describedby', `${id}-help ${id}-err`);
    input.addEventListener('change', () => {
      lane.inputs[key] = input.value;
      const p = parseOption(oi, input.value);
      if (!p.ok) {
        lane.fieldErrors[key] = p.message;
        schedule();
        return;
      }
      delete lane.fieldErrors[key];
      configure(lane, key);
      schedule();
    });
    options.append(
      el('label', { htmlFor: id }, oi.label),
      input,
      el('span', { className: 'help', id: `${id}-help` }, oi.help),
      el('p', { className: 'field-error', id: `${id}-err`, role: 'alert' }),
    );
  }

  const exportButton = el('button', { type: 'button', className: 'export', textContent: 'Download model (JSON)' });
  exportButton.addEventListener('click', () => post(lane, { type: 'export' }));

  const panel = el(
    'article',
    { className: 'lane' },
    el('header', {}, swatch, title, remove),
    el('p', { className: 'status' }),
    el('p', { className: 'lane-error', role: 'alert', hidden: true }),
    options,
    el('dl', { className: 'stats', hidden: true }),
    el('figure', {}, el('canvas', { className: 'filters', role: 'img' }), el('figcaption', { className: 'filters-caption' })),
    el('figure', {}, el('canvas', { className: 'dist', role: 'img' }), el('figcaption', { className: 'dist-caption' })),
    el('figure', { className: 'chains-figure', hidden: true }, el('canvas', { className: 'chains', role: 'img' }), el('figcaption', {}, 'The first chains of the negative phase (their current visible states).')),
    exportButton,
  );
  panel.setAttribute('aria-labelledby', `${pid}-title`);
  panel.dataset.laneId = String(lane.id);
  panel.dataset.algo = lane.algo;
  const old = panels.get(lane.id);
  if (old) old.replaceWith(panel);
  else lanesEl.append(panel);
  panels.set(lane.id, panel);
  drawn.delete(lane.id);
}

// ---- rendering -----------------------------------------------------------------------------

let frame = 0;
function schedule(): void {
  if (!frame) frame = requestAnimationFrame(render);
}

function render(): void {
  frame = 0;
  const ds = dataset();
  const bound = ds?.bound ?? null;
  runButton.textContent = app.running ? 'Pause' : 'Start';
  $('#chart-axes').textContent = `Vertical: average log-likelihood (exact), in nats per training pattern. Horizontal: ${AXIS_LABEL[app.axis]}.`;
  runButton.setAttribute('aria-pressed', String(app.running));
  chart.update(app.lanes.map((l) => ({ label: `${laneName(l)} (lane ${l.id})`, colour: laneColour(l.id), curve: l.curve })), app.axis, bound);
  for (const lane of app.lanes) renderLane(lane, ds);
}

function renderLane(lane: Lane, ds: DataSetInfo | undefined): void {
  const panel = panels.get(lane.id);
  if (!panel) return;
  const last = lane.curve.atll.length ? lane.curve.atll[lane.curve.atll.length - 1] : null;
  panel.dataset.status = lane.status;
  panel.dataset.iter = String(lane.iter);
  if (last !== null) panel.dataset.atll = String(last);
  const words: Record<string, string> = { loading: 'loading…', ready: 'ready', running: 'training', paused: 'paused', done: 'finished', failed: 'stopped', broken: 'not running' };
  const parts = [words[lane.status], `update ${lane.iter.toLocaleString('en')}`];
  if (lane.status === 'running' || lane.rate > 0) parts.push(`${formatRate(lane.rate)} updates`);
  const spu = sweepsPerUpdate(lane.curve);
  if (spu !== null) parts.push(`${formatStat(spu)} Gibbs sweeps/update`);
  if (last !== null) parts.push(`ATLL ${last.toFixed(4)}`);
  if (lane.seed) parts.push(`seed ${lane.seed}, lane ${lane.id}`);
  $('.status', panel).textContent = parts.join(' · ');
  const err = $('.lane-error', panel);
  err.hidden = !lane.message;
  err.textContent = lane.message ?? '';
  for (const key of Object.keys(lane.inputs)) {
    const input = panel.querySelector<HTMLInputElement>(`#lane-${lane.id}-${key}`);
    const msg = lane.fieldErrors[key] ?? '';
    const e = panel.querySelector(`#lane-${lane.id}-${key}-err`);
    if (e && e.textContent !== msg) e.textContent = msg;
    input?.setAttribute('aria-invalid', String(!!msg));
  }
  const stats = $('.stats', panel);
  const entries = Object.entries(lane.stats);
  stats.hidden = entries.length === 0;
  stats.replaceChildren(...entries.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, formatStat(v))]));

  const view = lane.view;
  if (!view || drawn.get(lane.id) === view || !ds) return;
  drawn.set(lane.id, view);
  const width = Math.max(200, panel.clientWidth - 32);
  const filters = $<HTMLCanvasElement>('canvas.filters', panel);
  const scale = drawFilters(filters, view.weights, view.m, view.n, ds.shape, Math.min(width, 320));
  const fcap = `Weight filters at update ${view.iter}: column j of W for each of the ${view.n} hidden units, as a ${ds.shape ? ds.shape.join('×') : `1×${view.m}`} image; blue negative, red positive, white 0 (scale ±${scale.toFixed(2)}).`;
  filters.setAttribute('aria-label', fcap);
  $('.filters-caption', panel).textContent = fcap;
  const dist = $<HTMLCanvasElement>('canvas.dist', panel);
  if (view.dist && ds.patterns.length === view.dist.model.length) {
    drawDistribution(dist, view.dist, ds.patterns, ds.shape, laneColour(lane.id), width);
    const on = view.dist.model.reduce((a, b) => a + b, 0);
    const dcap = `Model probability p(v) of the ${ds.patterns.length} distinct training patterns (filled bars; outlines: their frequency in the data). Mass on the data ${(100 * on).toFixed(1)}%, off it ${(100 * view.dist.off).toFixed(1)}%.`;
    dist.setAttribute('aria-label', dcap);
    $('.dist-caption', panel).textContent = dcap;
  }
  const chainsFig = $('.chains-figure', panel);
  chainsFig.hidden = !view.chains;
  if (view.chains) drawChains($<HTMLCanvasElement>('canvas.chains', panel), view.chains, view.m, ds.shape, width);
}

// ---- start -----------------------------------------------------------------------------------

interface TestHook {
  ready: boolean;
  lanes(): { id: number; algo: string; label: string | null; status: string; iter: number; rate: number; message: string | null; inputs: Record<string, string>; fieldErrors: Record<string, string>; iters: number[]; sweeps: number[]; atll: number[]; stats: Record<string, number> }[];
  running(): boolean;
  settings(): Settings;
  axis(): Axis;
  catalog(): Catalog | null;
}
const hook: TestHook = {
  ready: false,
  lanes: () => app.lanes.map((l) => ({ id: l.id, algo: l.algo, label: l.label, status: l.status, iter: l.iter, rate: l.rate, message: l.message, inputs: { ...l.inputs }, fieldErrors: { ...l.fieldErrors }, iters: [...l.curve.iter], sweeps: [...l.curve.sweeps], atll: [...l.curve.atll], stats: { ...l.stats } })),
  running: () => app.running,
  settings: () => ({ ...app.settings }),
  axis: () => app.axis,
  catalog: () => app.catalog,
};
(window as unknown as { __rbm: TestHook }).__rbm = hook;

showSettings(app.settings);
for (const algo of FIRST_LANES) addLane(algo);
