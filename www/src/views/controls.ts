// The controls: run and reset, the paper experiments, the settings every lane shares (from the
// core's schema: its shared options, plus the data set — with the user's own IDX files by
// picker or drop — and the end point in updates or epochs), the lane picker, the chart's axis
// and the keyboard. They call the App's actions and show its state.
import type { App, UserFile } from '../app/app';
import { AXIS_LABEL, type Axis, manyLanesText } from '../app/chartData';
import { TERM_OF_KEY } from '../app/glossary';
import { introText, runFindings, verdictCounts } from '../app/intro';
import { missingNote, paperScaleOffered, presetDescription, presetTitle, rateLabel, scaleNote } from '../app/presets';
import { STOP_UNITS, type StopUnit } from '../app/progress';
import { type Compute, dataFamily, type Scale } from '../app/state';
import { turnsNote } from '../app/turns';
import type { DataSetEntry } from '../generated/core';
import { ASSET_BYTES, formatBytes, formatProgress } from '../protocol/data';
import { formatValue, sharedOptions } from '../protocol/schema';
import { $, el, errorFor, optionInput, setAttr, setText, showError } from './dom';
import { termLink, tip } from './tips';

/** The picker's text of a data set: an asset says what choosing it downloads. */
export function dataOptionText(d: DataSetEntry, offline = isOffline()): string {
  // The one-file page (rbm-playground.html) leaves the large assets out.
  if (d.asset && offline) return `${d.description} — not in this offline file: load MNIST's IDX files with "Your own data…"`;
  const bytes = d.asset ? ASSET_BYTES[d.asset] : undefined;
  if (d.asset) return bytes ? `${d.description} — loads ${formatBytes(bytes)} once` : `${d.description} — downloaded when chosen`;
  return d.description;
}

/** Whether this is the one-file page (scripts/offline-html.mjs sets the flag). */
export function isOffline(): boolean {
  return (globalThis as { __RBM_OFFLINE__?: boolean }).__RBM_OFFLINE__ === true;
}

/** The largest smaller layer a lane enumerates inside its own training slice (the wasm
 * shell's INLINE_EXACT_BITS); above it, up to "exact up to", the page's evaluation pool does. */
export const INLINE_EXACT_BITS = 20;

/** The note under the chart when the lanes' exact curve is computed by the evaluation pool, or
 * when they cannot have one (else ''). */
export function exactNote(m: number, hidden: unknown, bits: unknown, workers = 2, aisEvery: number | null = null): string {
  if (typeof hidden !== 'number' || typeof bits !== 'number') return '';
  const smaller = Math.min(m, hidden);
  if (smaller <= INLINE_EXACT_BITS) return '';
  if (smaller <= bits) {
    return (
      `Each point of the exact curve sums over 2^${smaller} states: the page's ${workers} evaluation worker${workers === 1 ? '' : 's'} compute it ` +
      '(seconds for 2^21, a minute or so for 2^25), and each lane waits at its evaluation until its point is in; "Cancel" on a lane skips that point.'
    );
  }
  return (
    `No exact log-likelihood for more than ${bits} hidden units on ${m} visible units (the sum would run over 2^${smaller} states), ` +
    (aisEvery !== null
      ? `so these lanes draw no exact curve: each brackets its test log-likelihood by AIS / RAISE every ${aisEvery.toLocaleString('en')} updates (the points on the chart, training waiting for each). `
      : 'so these lanes draw no curve: the "Estimate log-likelihood (AIS)" button of each lane gives an AIS / RAISE bracket of the test log-likelihood. ') +
    'Their filters, samples and reconstructions below show the training.' +
    (smaller <= 30 ? ` Raise "exact up to" to ${smaller} for an exact curve computed by the page's evaluation workers (slow beyond 25).` : '')
  );
}

/** The chart's note for a study measured exactly on `dataset` (pcd-mnist-25): where its points come from. */
export function studyExactNote(dataset: string, hidden: unknown): string {
  const states = typeof hidden === 'number' ? `2^${hidden}` : 'all the hidden';
  return `Each trial measures its checkpoints itself, as \`rbm reproduce\` does: the exact log-likelihood of the ${dataset} digits (thresholded at 0.5), its log Z summed over ${states} states in the trial's worker — on its GPU where the trial runs there, else on the CPU — a few steps per slice, the trial training on once its point is in.`;
}

interface SettingField {
  key: string;
  input: HTMLInputElement | HTMLSelectElement;
  error: HTMLElement;
  /** The text last written into the input from the page's state. */
  shown: string;
  value(): string;
}

export class Controls {
  private readonly fields: SettingField[] = [];
  private readonly run = $<HTMLButtonElement>('#run');
  private readonly preset = $<HTMLSelectElement>('#preset');
  private readonly rate = $<HTMLSelectElement>('#preset-rate');
  private readonly addAlgo = $<HTMLSelectElement>('#add-algo');
  private readonly data: HTMLSelectElement;
  private readonly dataNote: HTMLElement;
  private readonly stopUnit: HTMLSelectElement;
  /** Where live lanes compute (shown where the browser has WebGPU). */
  private readonly compute: HTMLSelectElement;
  /** The preset's scale: the page's or the paper's (shown where a WebGPU adapter is). */
  private readonly scale: HTMLSelectElement;
  private readonly scaleField: HTMLElement;
  private readonly scaleNote: HTMLElement;
  private rateFor: string | null = '\u0000';
  private axesFor: string | null = null;
  private dataSetsShown: DataSetEntry[] | null = null;

  constructor(
    private readonly app: App,
    onAdd: (algo: string) => void,
  ) {
    const c = app.catalog;
    const settings = $('#settings');
    this.data = el('select', { id: 'data' });
    const dataField = this.field(
      settings,
      'data',
      'Data set',
      this.data,
      'the data set every lane trains on: a small built-in set, MNIST (downloaded once when chosen) or your own IDX files',
      () => app.data,
      (t) => app.setData(t),
    );
    this.dataNote = el('p', { className: 'field-note', id: 'data-note', role: 'status' });
    dataField.append(this.dataNote, this.dropZone());
    for (const spec of sharedOptions(c)) {
      const input = optionInput(spec, spec.key);
      const label = spec.label.charAt(0).toUpperCase() + spec.label.slice(1);
      this.field(
        settings,
        spec.key,
        label,
        input,
        spec.help,
        () => formatValue(app.shared[spec.key] ?? null),
        (t) => app.setShared(spec.key, t),
      );
    }
    const stop = el('input', { id: 'stop', type: 'text', inputMode: 'numeric', placeholder: 'never', autocomplete: 'off' });
    const stopField = this.field(
      settings,
      'stop',
      'Stop at',
      stop,
      "every lane stops here (empty: runs on); in epochs, each lane's end in updates follows its batch size. A lane whose η decays to 0 at the end point keeps decaying to it (and starts again)",
      () => formatValue(app.stop),
      (t) => app.setStop(t),
    );
    this.stopUnit = el('select', { id: 'stop-unit', title: 'the unit of the end point: parameter updates, or epochs (passes over the training rows)' });
    this.stopUnit.setAttribute('aria-label', 'unit of the end point');
    this.stopUnit.append(...STOP_UNITS.map((u) => new Option(u, u)));
    this.stopUnit.addEventListener('change', () => app.setStopUnit(this.stopUnit.value as StopUnit));
    const row = el('div', { className: 'inline' });
    stop.replaceWith(row);
    row.append(stop, this.stopUnit);
    stopField.classList.add('stop-field');

    const trials = el('input', { id: 'trials', type: 'text', inputMode: 'numeric', placeholder: 'one live run', autocomplete: 'off' });
    this.field(
      $('#preset-fields'),
      'trials',
      'Trials per lane',
      trials,
      "each lane runs this many independent trials, seeded as `rbm reproduce` seeds them (trial i here is the CLI's trial i); the chart draws their median and bands. Empty: one live run per lane. On the small data sets, and on MNIST for its paper presets (each trial measures its checkpoints on the test digits, by AIS or exactly, as the CLI does)",
      // No trials on MNIST but for its paper presets (refused there): the field shows one live run.
      () => formatValue(app.trialsRefused() ? null : app.trials),
      (t) => app.setTrials(t),
    );
    this.preset.append(...c.presets.map((p) => new Option(`${presetTitle(p)} — ${p.paper}`, p.name)));
    this.preset.disabled = false;
    this.preset.addEventListener('change', () => app.applyPreset(this.preset.value || null));
    this.rate.addEventListener('change', () => app.applyRate(Number(this.rate.value)));
    // The paper's scale of an MNIST preset (issue 30): its trials, length and AIS, as `rbm
    // reproduce NAME --scale paper`, offered where the browser has a WebGPU adapter.
    this.scale = el('select', { id: 'preset-scale' });
    this.scale.append(new Option("the page's (shorter)", 'page'), new Option("the paper's", 'paper'));
    this.scale.setAttribute('aria-describedby', 'preset-scale-note');
    this.scale.addEventListener('change', () => app.setScale(this.scale.value as Scale));
    this.scaleField = el('div', { className: 'field', id: 'preset-scale-field', hidden: true });
    this.scaleField.style.display = 'none';
    const scaleLabel = el('label', { htmlFor: 'preset-scale' });
    setText(scaleLabel, 'Scale');
    this.scaleNote = el('p', { id: 'preset-scale-note', className: 'preset-note' });
    this.scaleField.append(scaleLabel, this.scale, this.scaleNote);
    $('#preset-fields').before(this.scaleField);

    this.addAlgo.replaceChildren(...c.algorithms.map((a) => new Option(`${a.title} — ${a.paper}`, a.name)));
    this.addAlgo.disabled = false;
    const add = $<HTMLButtonElement>('#add');
    add.disabled = false;
    add.addEventListener('click', () => onAdd(this.addAlgo.value));

    this.compute = el('select', {
      id: 'compute',
      title:
        "where live lanes compute: the CPU (the wasm core, in one worker per lane) or the browser's GPU (WebGPU); a lane the GPU cannot run (UCD, PT, slow motion) says so and runs on the CPU",
    });
    this.compute.setAttribute('aria-label', 'compute');
    this.compute.append(new Option('automatic (GPU for MNIST)', 'auto'), new Option('CPU (wasm)', 'cpu'), new Option('GPU (WebGPU)', 'gpu'));
    this.compute.addEventListener('change', () => app.setCompute(this.compute.value as Compute));
    const computeField = el('div', { className: 'field compute-field', hidden: !hasWebGpu() && app.compute === 'auto' });
    const computeLabel = el('label', { htmlFor: 'compute' });
    setText(computeLabel, 'Compute');
    computeField.append(computeLabel, this.compute);
    $('#settings').append(computeField);
    void gpuAdapterName().then((name) => {
      if (name === null) return;
      computeField.hidden = false;
      const gpu = this.compute.options[2];
      if (gpu) gpu.text = `GPU (WebGPU): ${name}`;
      app.gpuFound(name);
    });

    this.run.addEventListener('click', () => app.toggle());
    // Reset discards a study under way: asked first (a long live run's Reset is the button's own word).
    $('#reset').addEventListener('click', () => app.mayDropStudy('Reset') && app.reset());
    for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="axis"]')) {
      radio.addEventListener('change', () => app.setAxis(radio.value as Axis));
    }
    document.addEventListener('keydown', (e) => {
      const t = e.target as HTMLElement;
      if (e.ctrlKey || e.metaKey || e.altKey || ['INPUT', 'SELECT', 'TEXTAREA'].includes(t.tagName) || t.isContentEditable) return;
      // A classroom link that hides a button takes its key away too.
      const shown = (b: HTMLElement) => b.checkVisibility?.() ?? true;
      if (e.key === 's' && shown(this.run)) app.toggle();
      // A stray key must not wipe a long run unasked.
      else if (e.key === 'r' && shown($('#reset')) && app.mayWipe('Reset', app.lanes)) app.reset();
    });
  }

  /** One settings input with its label, help and message; returns its element. */
  private field(
    parent: HTMLElement,
    key: string,
    label: string,
    input: HTMLInputElement | HTMLSelectElement,
    help: string,
    value: () => string,
    onChange: (text: string) => unknown,
  ): HTMLElement {
    const error = errorFor(input, `err-${key}`);
    input.title = help;
    // A declined rebuild (app.ts, mayWipe) leaves the value in use: show it again.
    input.addEventListener('change', () => {
      if (onChange(input.value) === false) input.value = value();
    });
    const term = TERM_OF_KEY[key];
    const div = el(
      'div',
      { className: 'field' },
      el('div', { className: 'label-row' }, el('label', { htmlFor: input.id }, label), tip(label, help, term)),
      input,
      error,
    );
    div.dataset.part = key;
    parent.append(div);
    this.fields.push({ key, input, error, shown: '\u0000', value });
    return div;
  }

  /** The user's own data: a file picker and a drop area for IDX images (and labels). */
  private dropZone(): HTMLElement {
    const input = el('input', { type: 'file', id: 'data-files', multiple: true, className: 'file-input' });
    input.setAttribute('aria-describedby', 'err-data data-note');
    const zone = el(
      'div',
      { className: 'drop', id: 'data-drop' },
      el('label', { htmlFor: 'data-files', className: 'file-button' }, 'Your own data…'),
      input,
      el('span', { className: 'drop-help' }, 'or drop IDX files here: images (idx3-ubyte) and optional labels (idx1-ubyte), either may be gzipped'),
    );
    const take = (list: FileList | null) => {
      const files: UserFile[] = [...(list ?? [])].map((f) => ({ name: f.name, size: f.size, url: URL.createObjectURL(f) }));
      if (files.length) void this.app.addFiles(files);
    };
    input.addEventListener('change', () => {
      take(input.files);
      input.value = ''; // the same file again is a new choice
    });
    const hasFiles = (e: DragEvent) => e.dataTransfer?.types.includes('Files') ?? false;
    zone.addEventListener('dragover', (e) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      zone.classList.add('over');
    });
    zone.addEventListener('dragleave', () => zone.classList.remove('over'));
    zone.addEventListener('drop', (e) => {
      e.preventDefault();
      zone.classList.remove('over');
      take(e.dataTransfer?.files ?? null);
    });
    // A file dropped beside the area must not make the browser leave the page.
    for (const type of ['dragover', 'drop'] as const) {
      window.addEventListener(type, (e) => {
        if (hasFiles(e) && !zone.contains(e.target as Node)) e.preventDefault();
      });
    }
    return zone;
  }

  /** The picker's options, grouped: small sets, downloaded sets, the user's files. */
  private syncDataSets(): void {
    const sets = this.app.dataSets;
    if (sets === this.dataSetsShown) return;
    this.dataSetsShown = sets;
    const group = (label: string, list: DataSetEntry[]) => {
      const g = el('optgroup', { label });
      g.append(...list.map((d) => new Option(dataOptionText(d), d.name)));
      return list.length ? [g] : [];
    };
    const builtIn = new Set(this.app.catalog.data_sets.map((d) => d.name));
    this.data.replaceChildren(
      ...group(
        'Small sets (exact likelihood)',
        sets.filter((d) => builtIn.has(d.name) && dataFamily(d) === 'small'),
      ),
      ...group(
        'MNIST (downloaded when chosen)',
        sets.filter((d) => builtIn.has(d.name) && dataFamily(d) !== 'small'),
      ),
      ...group(
        'Your files',
        sets.filter((d) => !builtIn.has(d.name)),
      ),
    );
    this.data.value = this.app.data;
    const f = this.fields.find((x) => x.key === 'data');
    if (f) f.shown = this.app.data;
  }

  /** What the data input says while data is checked or loaded. */
  private dataStatus(): string {
    const app = this.app;
    if (app.checking) return `checking '${app.checking}'…`;
    const loads = app.lanes.map((l) => l.dataLoad).filter((d) => d !== null);
    if (!loads.length) return '';
    const slowest = loads.reduce((a, b) => (b.received < a.received ? b : a));
    return `loading ${slowest.label} in ${loads.length === 1 ? 'one lane' : `${loads.length} lanes`}… ${formatProgress(slowest.received, slowest.total)}`;
  }

  /** The chart's axes in words, with their terms linked to the glossary. */
  private axes(axis: Axis, ais = false, exact = true): void {
    const key = `${axis}:${ais}:${exact}`;
    if (this.axesFor === key) return;
    this.axesFor = key;
    // Lanes with an AIS schedule (sdcp-mnist) plot estimates of the test digits, not exact values.
    const what = !ais
      ? [' (exact), in nats per training pattern; the dashed line is ', termLink('bound', 'the bound')]
      : exact
        ? [
            ' in nats per pattern: lines exact (training patterns), points ',
            termLink('ais', 'AIS'),
            ' estimates (on MNIST: of the test digits) with bars from RAISE’s lower to AIS’s upper end',
          ]
        : [
            ' in nats per pattern, estimated by ',
            termLink('ais', 'AIS'),
            ' at the lanes’ schedule (on MNIST: of the test digits): points, with bars from RAISE’s lower to AIS’s upper end',
          ];
    $('#chart-axes').replaceChildren(
      'Vertical: ',
      termLink('atll', 'average log-likelihood'),
      ...what,
      '. Horizontal: ',
      termLink(axis === 'sweeps' ? 'gibbs-sweep' : 'update', AXIS_LABEL[axis]),
      '.',
    );
    // The chart's accessible name says what it plots, on the axis shown; the line above is its description.
    const chart = $('#chart');
    chart.setAttribute('aria-label', `Average log-likelihood of each lane against ${AXIS_LABEL[axis]}`);
    chart.setAttribute('aria-describedby', 'chart-axes');
  }

  /** What this run or study shows so far, from its numbers (rewritten on every draw). */
  private findings(): string {
    const app = this.app;
    const run = app.study;
    if (!run)
      return runFindings(
        app.lanes.map((l) => ({ label: app.laneTitle(l), iter: l.curve.iter, atll: l.curve.atll })),
        null,
      );
    const verdicts = app.verdicts();
    if (verdicts) return runFindings([], verdictCounts(verdicts));
    const medians = run.study.plan.lanes.map((l, i) => {
      const bands = run.study.bands(i);
      const n = bands.indexOf(null);
      const got = (n < 0 ? bands : bands.slice(0, n)) as NonNullable<(typeof bands)[number]>[];
      return { label: `${l.label} (median)`, iter: got.map((b) => b.iter), atll: got.map((b) => b.median) };
    });
    return runFindings(medians, null).replace(/^This run/, 'This study');
  }

  update(): void {
    const app = this.app;
    this.syncDataSets();
    for (const f of this.fields) {
      const text = f.value();
      // Only a new value replaces the text: refused text stays in its input, with its message
      // (text the core refused goes back to the value in use).
      if (text !== f.shown || app.reverted.delete(f.key)) {
        f.input.value = text;
        f.shown = text;
      }
      showError(f.input, f.error, app.settingError(f.key));
    }
    const running = app.running();
    setText(this.run, running ? 'Pause' : 'Start');
    setAttr(this.run, 'aria-pressed', String(running));
    const p = app.catalog.presets.find((x) => x.name === app.preset) ?? null;
    if (this.preset.value !== (p?.name ?? '')) this.preset.value = p?.name ?? '';
    if (this.rateFor !== (p?.name ?? null)) {
      this.rateFor = p?.name ?? null;
      this.rate.replaceChildren(...(p ? p.rates.map((_, i) => new Option(rateLabel(p, i), String(i))) : []));
      this.rate.disabled = !p;
    }
    if (p && this.rate.value !== String(app.rate)) this.rate.value = String(app.rate);
    const offered = p !== null && (paperScaleOffered(p, app.gpuAdapter !== null) || (app.scale === 'paper' && p.paper_scale !== null));
    this.scaleField.hidden = !offered;
    this.scaleField.style.display = offered ? '' : 'none'; // .field's display would show it
    if (offered && p) {
      if (this.scale.value !== app.scale) this.scale.value = app.scale;
      setText(this.scaleNote, scaleNote(p, app.scale, app.studyOn() === 'gpu' ? app.gpuAdapter : null));
    }
    setText($('#preset-note'), p ? presetDescription(p, app.studyMode()) : '');
    setText($('#preset-missing'), missingNote(app.missing));
    for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="axis"]')) radio.checked = radio.value === app.axis;
    this.axes(
      app.axis,
      app.lanes.some((l) => l.aisEvery !== null || l.brackets.length > 0),
      app.lanes.some((l) => l.curve.iter.length > 0),
    );
    setText($('#intro'), introText(app.catalog, app.state()));
    setText($('#findings'), this.findings());
    if (this.stopUnit.value !== app.stopUnit) this.stopUnit.value = app.stopUnit;
    if (this.compute.value !== app.compute) this.compute.value = app.compute;
    setText(this.dataNote, this.dataStatus());
    const ds = app.dataset();
    const every = app.lanes.find((l) => l.aisEvery !== null)?.aisEvery ?? null;
    // A study measured exactly (pcd-mnist-25) takes its points in its trial workers, not the pool.
    const measure = app.studyMode() ? app.studyMeasure() : null;
    const exact =
      measure && 'exact' in measure
        ? studyExactNote(measure.dataset, app.shared.hidden)
        : ds
          ? exactNote(ds.m, app.shared.hidden, app.shared.exact_bits, app.evalWorkers, every)
          : '';
    // The explanation under the chart: exact curves, or AIS points where every lane has a schedule.
    const aisOnly = app.lanes.length > 0 && app.lanes.every((l) => l.aisEvery !== null && l.curve.iter.length === 0);
    $('#explain-exact').hidden = aisOnly;
    $('#explain-ais').hidden = !aisOnly;
    // Not in the compact embed, where the chart must fit a course page's frame.
    const turns = app.view.embed ? '' : turnsNote(app.lanes.length, app.turns.capacity);
    setText($('#chart-note'), [app.runMessage ?? '', turns, exact].filter((t) => t !== '').join(' '));
    const notice = $('#notice');
    setText(notice, app.notices.join(' '));
    notice.hidden = app.notices.length === 0;
    const many = manyLanesText(app.lanes.length, navigator.hardwareConcurrency || 2);
    const warn = $('#lanes-warning');
    setText(warn, many ?? '');
    warn.hidden = many === null;
  }
}

/** Whether the browser has WebGPU at all. */
function hasWebGpu(): boolean {
  return typeof navigator !== 'undefined' && 'gpu' in navigator && Boolean((navigator as { gpu?: unknown }).gpu);
}

/** The name of the browser's WebGPU adapter, or null where it offers none (asked once; no
 * computation: the lanes' workers open the device themselves). */
export async function gpuAdapterName(): Promise<string | null> {
  if (!hasWebGpu()) return null;
  try {
    const gpu = (
      navigator as unknown as { gpu: { requestAdapter(): Promise<{ info?: { vendor?: string; architecture?: string; description?: string } } | null> } }
    ).gpu;
    const a = await gpu.requestAdapter();
    if (!a) return null;
    const i = a.info ?? {};
    return i.description || [i.vendor, i.architecture].filter(Boolean).join(' ') || 'adapter';
  } catch {
    return null;
  }
}
