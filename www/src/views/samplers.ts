// The sampler view (the rates-FPCD paper, Breuleux, Bengio & Vincent 2011): Gibbs, rates-FPCD,
// rates-herding and sample penalisation side by side on one trained MNIST model — sample
// strips (its Figure 1), ISL against the number of samples (its Figure 2) and the digit class
// of each sample as a coloured strip. Every computation runs in workers/samplerWorker.ts: on
// the CPU (the wasm core) or, where the browser offers a WebGPU adapter, on the user's GPU
// (issue 30; the default there), every figure drawn from GPU samples labelled as such.
import uPlot from 'uplot';
import type { SamplerConfig, SamplerEntry, SelfTest } from '../generated/core';
import type { FromSamplerWorker, ToSamplerWorker } from '../protocol/samplers';
import { gpuAdapterName } from './controls';
import { $, el, errorFor, optionInput, setText, showError } from './dom';
import { hoverReadout, stripReadout } from './readouts';
import {
  addSlice,
  CLASS_COLOURS,
  CLASS_HISTORY,
  deviceLabel,
  emptyRow,
  islColumns,
  type SamplerRowState,
  STRIP_LENGTH,
  samplerConfigs,
  samplersOn,
  samplesPerSecond,
} from './samplerRows';

/** The model shipped with the page (scripts/build-sampler-model.sh trains it). */
export const SHIPPED_MODEL = 'assets/sampler-model.rbm.gz';
const SIDE = 28;
const SCALE = 2;
const LIMIT = 100_000;
/** What Start and the self-test say while a sampler's option input is refused. */
const REFUSED = 'A sampler option was refused (its message is beside it): correct it first.';

/** A trained lane the view can sample from. */
export interface LaneSource {
  id: number;
  label: string;
  visible: number;
  fetch(): Promise<string>;
}

interface WorkerLike {
  postMessage(msg: ToSamplerWorker): void;
  onmessage: ((e: MessageEvent<FromSamplerWorker>) => void) | null;
  terminate(): void;
}

export class SamplerView {
  private worker: WorkerLike | null = null;
  private gen = 0;
  private rows: SamplerRowState[] = [];
  private reference: { n: number; isl: number; beta: number }[] = [];
  private readonly status = el('p', { className: 'sampler-status', role: 'status' });
  private readonly startBtn = el('button', { type: 'button', className: 'primary' }, 'Start sampling');
  private readonly modelSelect = el('select', { id: 'sampler-model' });
  private readonly file = el('input', { type: 'file', id: 'sampler-file', accept: '.json,.rbm,.gz', hidden: true });
  private readonly seed = el('input', { id: 'sampler-seed', type: 'text', value: '1', inputMode: 'numeric', size: 6 });
  private readonly every = el('input', { id: 'sampler-every', type: 'text', value: '10', inputMode: 'numeric', size: 4 });
  private readonly grey = el('input', { id: 'sampler-grey', type: 'checkbox', checked: true });
  /** Where the samplers run: shown once the browser offers a WebGPU adapter. */
  private readonly compute = el('select', { id: 'sampler-compute' });
  private readonly computeField = el('span', { className: 'sampler-compute-field', hidden: true });
  /** The adapter's name once found (null: none, or not yet), the user's choice (null: none). */
  private adapter: string | null = null;
  private choice: 'cpu' | 'gpu' | null = null;
  /** Where the current run's samples come from: the adapter's name, or null for the CPU. */
  private device: string | null = null;
  private readonly deviceNote = el('p', { className: 'sampler-device', role: 'status' });
  private readonly islDevice = el('span', { className: 'isl-device' });
  /** The samplers' option inputs by `sampler.key`, each with the element of its refusal. */
  private readonly inputs = new Map<string, { input: HTMLInputElement; error: HTMLElement }>();
  private readonly rowEls: { strip: HTMLCanvasElement; classes: HTMLCanvasElement; stats: HTMLElement }[] = [];
  private readonly chartEl = el('div', { className: 'isl-chart' });
  private plot: uPlot | null = null;
  private frame = 0;
  private fileUrl: string | null = null;
  private tester: WorkerLike | null = null;
  private readonly testBtn = el('button', { type: 'button' }, 'Run the self-test');
  private readonly testOut = el('div', { className: 'sampler-selftest', role: 'status' });

  constructor(
    private readonly root: HTMLElement,
    private readonly samplers: SamplerEntry[],
    private readonly newWorker: () => WorkerLike,
    private readonly urls: { asset: (name: string) => string; page: (path: string) => string },
    private readonly lanes: () => LaneSource[] = () => [],
    adapter: () => Promise<string | null> = async () => null,
  ) {
    this.build();
    void adapter().then((name) => this.adapterFound(name));
  }

  /** The browser's WebGPU adapter `name` (null: none): the Compute choice appears, the GPU
   * chosen unless the user chose. */
  private adapterFound(name: string | null): void {
    if (name === null) return;
    this.adapter = name;
    const gpu = this.compute.options[1];
    if (gpu) gpu.text = `GPU (WebGPU): ${name}`;
    this.compute.value = samplersOn(this.choice, name);
    this.computeField.hidden = false;
  }

  /** Destroys the running samplers' GPU, as a driver reset would (the e2e test of the way back
   * to the CPU). */
  loseGpuForTest(): void {
    this.worker?.postMessage({ type: 'loseGpu', gen: this.gen });
  }

  private build(): void {
    this.modelSelect.append(new Option('the model shipped with the page (FPCD, 784×500)', 'shipped'), new Option('a model file…', 'file'));
    // The lanes change while the page runs: list them whenever the picker is about to open.
    const refresh = () => {
      const keep = this.modelSelect.value;
      for (const o of [...this.modelSelect.options]) if (o.value.startsWith('lane:')) o.remove();
      for (const l of this.lanes()) if (l.visible === 784) this.modelSelect.append(new Option(`the current model of lane ${l.label}`, `lane:${l.id}`));
      this.modelSelect.value = [...this.modelSelect.options].some((o) => o.value === keep) ? keep : 'shipped';
    };
    this.modelSelect.addEventListener('focus', refresh);
    this.modelSelect.addEventListener('pointerdown', refresh);
    this.modelSelect.addEventListener('change', () => {
      this.file.hidden = this.modelSelect.value !== 'file';
      if (!this.file.hidden) this.file.click();
    });
    this.startBtn.addEventListener('click', () => (this.worker ? this.stop('stopped') : this.start()));
    this.compute.append(new Option('CPU (wasm)', 'cpu'), new Option('GPU (WebGPU)', 'gpu'));
    this.compute.title = "where the samplers run: the CPU (the wasm core, in the view's worker) or the browser's GPU (WebGPU); Start runs them there";
    this.compute.addEventListener('change', () => {
      this.choice = this.compute.value === 'gpu' ? 'gpu' : 'cpu';
    });
    this.computeField.append(' ', el('label', { htmlFor: 'sampler-compute' }, 'Compute: '), this.compute);
    const options = el('div', { className: 'sampler-options' });
    for (const s of this.samplers) {
      const fields = el('span', { className: 'sampler-option' }, el('strong', {}, s.title));
      for (const spec of s.options) {
        const key = spec.key;
        if (key === 'cap') continue;
        const input = optionInput(spec, `sampler-${s.name}-${key}`) as HTMLInputElement;
        input.size = 6;
        input.placeholder = key === 'k' ? '1' : String(key === 'eps_f' ? s.eps_f : s.alpha);
        input.title = spec.help;
        // Refused text stays in its input with its message beside it, as a lane's does.
        const error = errorFor(input, `${input.id}-err`, 'span');
        input.addEventListener('change', () => this.configs());
        this.inputs.set(`${s.name}.${key}`, { input, error });
        fields.append(' ', el('label', { htmlFor: input.id, title: spec.label }, key === 'eps_f' ? 'ε_F' : key === 'alpha' ? 'α' : 'k'), ' ', input, error);
      }
      options.append(fields);
    }
    const table = el('div', { className: 'sampler-rows' });
    for (const s of this.samplers) {
      const strip = el('canvas', { width: STRIP_LENGTH * SIDE, height: SIDE, className: 'sampler-strip' });
      strip.style.width = `${STRIP_LENGTH * SIDE * SCALE}px`;
      const classes = el('canvas', { width: CLASS_HISTORY, height: 1, className: 'sampler-classes' });
      classes.setAttribute('aria-label', `digit class of each of the last ${CLASS_HISTORY} samples of ${s.title}`);
      const stats = el('p', { className: 'sampler-stats' });
      const i = this.rowEls.length;
      const readout = hoverReadout(strip, () => (x) => stripReadout(this.rows[i]?.strip ?? [], Math.floor(x / (SIDE * SCALE))));
      table.append(el('div', { className: 'sampler-row' }, el('h3', { title: s.about }, s.title), strip, readout, classes, stats));
      this.rowEls.push({ strip, classes, stats });
    }
    const legend = el('p', { className: 'sampler-legend' }, 'Class colours (the nearest training digit): ');
    CLASS_COLOURS.forEach((c, d) => {
      const sw = el('span', { className: 'swatch' }, String(d));
      sw.style.background = c;
      legend.append(sw, ' ');
    });
    this.file.addEventListener('change', () => {
      if (this.fileUrl) URL.revokeObjectURL(this.fileUrl);
      const f = this.file.files?.[0];
      this.fileUrl = f ? URL.createObjectURL(f) : null;
    });
    this.root.append(
      el(
        'p',
        { className: 'sampler-intro' },
        'Four ways to draw digits from one trained RBM. Plain Gibbs sampling stays near one digit for a long time; the rates-FPCD paper’s samplers add fast weights that push the chain away from what it just produced, so it visits other digits sooner. Watch the strips, the class colours and how fast each ISL curve (a Parzen estimate of how well the samples cover held-out digits) rises.',
      ),
      el(
        'div',
        { className: 'sampler-controls' },
        this.startBtn,
        ' ',
        el('label', { htmlFor: 'sampler-model' }, 'Model: '),
        this.modelSelect,
        this.file,
        ' ',
        el('label', { htmlFor: 'sampler-seed' }, 'seed '),
        this.seed,
        ' ',
        el('label', { htmlFor: 'sampler-every' }, 'strip every '),
        this.every,
        ' samples ',
        el('label', {}, this.grey, ' grey E[x|h]'),
        this.computeField,
      ),
      options,
      this.status,
      this.deviceNote,
      table,
      legend,
      el('h3', {}, 'ISL against the number of samples (higher is better; dashed: the training digits themselves)', this.islDevice),
      this.chartEl,
      el('h3', {}, 'Self-test: does a sampler leave the model’s distribution unchanged?'),
      el(
        'p',
        {},
        'On a Bars & Stripes 4×4 model small enough to enumerate all 65 536 patterns, 20 000 chains start at exact draws from the model and each sampler moves them 1, 4 and 16 samples on (with the ε_F and α above; empty fields: 0.05 for this small model). A correct MCMC sampler keeps them distributed as the model: its total-variation distance stays at the noise floor of 20 000 exact draws. The fast-weight samplers trade that exactness for mixing.',
      ),
      this.testBtn,
      this.testOut,
    );
    this.testBtn.addEventListener('click', () => this.selfTest());
  }

  private selfTest(): void {
    const read = this.configs();
    if (!read) {
      setText(this.testOut, REFUSED);
      return;
    }
    this.tester?.terminate();
    const tester = this.newWorker();
    this.tester = tester;
    this.testBtn.disabled = true;
    setText(this.testOut, 'running… (a few seconds)');
    const configs = read.map((c) => (c.sampler === 'gibbs' || c.eps_f !== undefined ? c : { ...c, eps_f: 0.05 }));
    tester.onmessage = (e) => {
      const msg = e.data;
      if (msg.type !== 'selftest') return;
      tester.terminate();
      this.tester = null;
      this.testBtn.disabled = false;
      if (msg.error || !msg.results) {
        setText(this.testOut, `The self-test failed: ${msg.error ?? 'no result'}`);
        return;
      }
      this.testOut.replaceChildren(selfTestTable(msg.results, this.samplers));
    };
    tester.postMessage({ type: 'selftest', id: 1, configs, chains: 20_000, seed: Math.round(Number(this.seed.value)) || 1 });
  }

  /** The samplers' configurations from their inputs, each refusal shown beside its input;
   * null while any input is refused. */
  private configs(): Partial<SamplerConfig>[] | null {
    const { configs, refused } = samplerConfigs(this.samplers, (sampler, key) => this.inputs.get(`${sampler}.${key}`)?.input.value);
    for (const [k, f] of this.inputs) showError(f.input, f.error, refused.get(k) ?? '');
    return refused.size ? null : configs;
  }

  start(): void {
    if (!this.configs()) {
      this.say(REFUSED);
      return;
    }
    const every = Math.round(Number(this.every.value));
    const seed = Math.round(Number(this.seed.value));
    if (!(every >= 1 && every <= 10_000)) {
      this.say('“strip every” must be a whole number from 1 to 10 000');
      return;
    }
    if (!(seed >= 0 && Number.isSafeInteger(seed))) {
      this.say('the seed must be a whole number from 0 to 2^53 − 1');
      return;
    }
    const source = this.modelSelect.value;
    if (source.startsWith('lane:')) {
      const lane = this.lanes().find((l) => `lane:${l.id}` === source);
      if (!lane) {
        this.say('that lane is gone: choose another model');
        return;
      }
      this.say(`fetching the model of lane ${lane.label}…`);
      lane.fetch().then((json) => {
        if (this.fileUrl) URL.revokeObjectURL(this.fileUrl);
        this.fileUrl = URL.createObjectURL(new Blob([json], { type: 'application/json' }));
        this.run(this.fileUrl, every, seed);
      });
      return;
    }
    const modelUrl = source === 'file' ? this.fileUrl : this.urls.page(SHIPPED_MODEL);
    if (!modelUrl) {
      this.say('choose a model file first (a model downloaded from a 784-visible lane, or one saved by rbm train)');
      return;
    }
    this.run(modelUrl, every, seed);
  }

  private run(modelUrl: string, every: number, seed: number): void {
    // Read again: an input may have changed while a lane's model was fetched.
    const configs = this.configs();
    if (!configs) {
      this.say(REFUSED);
      return;
    }
    this.worker?.terminate();
    const worker = this.newWorker();
    this.worker = worker;
    this.gen += 1;
    this.rows = this.samplers.map(() => emptyRow());
    this.reference = [];
    worker.onmessage = (e) => this.receive(e.data);
    this.showDevice(null, '');
    const compute = samplersOn(this.choice, this.adapter);
    worker.postMessage({ type: 'start', gen: this.gen, compute, modelUrl, assetUrl: this.urls.asset('mnist'), configs, seed, every, limit: LIMIT });
    setText(this.startBtn, 'Stop');
    this.schedule();
  }

  stop(message: string): void {
    this.worker?.terminate();
    this.worker = null;
    this.gen += 1;
    setText(this.startBtn, 'Start sampling');
    this.say(message);
  }

  private say(message: string): void {
    setText(this.status, message);
  }

  private receive(msg: FromSamplerWorker): void {
    if (msg.type === 'selftest' || msg.gen !== this.gen) return;
    if (msg.type === 'status') {
      if (msg.status === 'error') {
        this.stop(`Sampling stopped: ${msg.message}`);
        return;
      }
      if (msg.status === 'done') {
        this.stop(`Done: ${msg.message}.`);
        return;
      }
      this.say(msg.message);
      return;
    }
    if (msg.type === 'device') {
      // The run starts (again) on this device: what came before is dropped.
      this.rows = this.samplers.map(() => emptyRow());
      this.plot?.destroy();
      this.plot = null;
      this.chartEl.replaceChildren();
      this.showDevice(msg.gpu, msg.message);
      this.schedule();
      return;
    }
    if (msg.type === 'reference') {
      this.reference = msg.points;
      this.schedule();
      return;
    }
    const s = msg.slice;
    const row = this.rows[msg.row];
    if (!row) return;
    addSlice(row, { image: this.grey.checked ? s.grey : s.binary, classes: s.classes, isl: s.isl, mixing: s.mixing, emitted: s.emitted, seconds: msg.seconds });
    this.schedule();
  }

  /** Labels the run's samples and figures with their device, and says why a run asked for the
   * GPU is on the CPU. */
  private showDevice(gpu: string | null, message: string): void {
    this.device = gpu;
    this.root.dataset.device = gpu === null ? 'cpu' : 'gpu';
    setText(this.deviceNote, [message, `Samples drawn on the ${deviceLabel(gpu)}.`].filter(Boolean).join(' '));
    this.deviceNote.dataset.fallback = String(message !== '');
    setText(this.islDevice, gpu === null ? '' : ` — samples drawn on the ${deviceLabel(gpu)}`);
  }

  private schedule(): void {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.draw());
  }

  private draw(): void {
    this.frame = 0;
    this.rows.forEach((row, i) => {
      const els = this.rowEls[i];
      drawStrip(els.strip, row.strip);
      drawClasses(els.classes, row.classes);
      const rate = samplesPerSecond(row);
      const m = row.mixing;
      const last = row.isl.at(-1);
      els.stats.dataset.emitted = String(row.emitted);
      els.stats.dataset.device = this.device === null ? 'cpu' : 'gpu';
      els.stats.dataset.classes = String(row.mixing?.classes ?? 0);
      if (last) els.stats.dataset.isl = String(last.isl);
      setText(
        els.stats,
        [
          this.device === null ? '' : 'GPU',
          `${row.emitted.toLocaleString('en')} samples`,
          rate === null ? '' : `${Math.round(rate).toLocaleString('en')} samples/s`,
          m ? `${m.classes} classes visited, mean run ${m.mean_run.toFixed(1)} samples` : '',
          last ? `ISL ${last.isl.toFixed(1)} at ${last.n.toLocaleString('en')}` : '',
        ]
          .filter(Boolean)
          .join(' · '),
      );
    });
    this.drawChart();
  }

  private drawChart(): void {
    const cols = islColumns(
      this.rows.map((r) => r.isl),
      this.reference,
    );
    if (cols[0].length === 0) return;
    const width = Math.max(280, Math.min(this.root.clientWidth - 16, 900));
    if (!this.plot) {
      const series: uPlot.Series[] = [
        { label: 'samples N' },
        ...this.samplers.map((s, i) => ({ label: s.title, stroke: CLASS_COLOURS[i], width: 2, spanGaps: true })),
        { label: 'training digits', stroke: '#444', dash: [6, 4], width: 1.5, spanGaps: true },
      ];
      this.plot = new uPlot(
        {
          width,
          height: 300,
          scales: { x: { time: false, distr: 3 } },
          axes: [{ label: 'samples N (log scale)' }, { label: 'ISL (nats)' }],
          series,
        },
        cols as uPlot.AlignedData,
        this.chartEl,
      );
    } else {
      this.plot.setData(cols as uPlot.AlignedData);
    }
  }
}

function selfTestTable(results: SelfTest[], samplers: SamplerEntry[]): HTMLTableElement {
  const steps = results[0]?.points.map((p) => p.steps) ?? [];
  const head = el('tr', {}, el('th', {}, 'sampler'), ...steps.map((s) => el('th', {}, `TV after ${s}`)), el('th', {}, 'noise floor'), el('th', {}, 'verdict'));
  const rows = results.map((r) => {
    const floor = r.points[0];
    const title = samplers.find((s) => s.name === r.sampler)?.title ?? r.sampler;
    const tr = el(
      'tr',
      { className: r.at_floor ? 'at-floor' : 'drifts' },
      el('td', {}, title),
      ...r.points.map((p) => el('td', {}, p.tv.toFixed(4))),
      el('td', {}, floor ? `${floor.noise_floor.toFixed(4)} ± ${floor.noise_sd.toFixed(4)}` : ''),
      el('td', {}, r.at_floor ? 'at the floor (no drift)' : 'drifts away from the model'),
    );
    tr.dataset.sampler = r.sampler;
    tr.dataset.atFloor = String(r.at_floor);
    return tr;
  });
  return el('table', { className: 'selftest-table' }, el('thead', {}, head), el('tbody', {}, ...rows));
}

function drawStrip(canvas: HTMLCanvasElement, images: Float32Array[]): void {
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  const img = ctx.createImageData(canvas.width, canvas.height);
  images.forEach((x, k) => {
    for (let r = 0; r < SIDE; r++) {
      for (let c = 0; c < SIDE; c++) {
        const v = 255 - Math.round(255 * (x[r * SIDE + c] ?? 0));
        const o = 4 * (r * canvas.width + k * SIDE + c);
        img.data[o] = img.data[o + 1] = img.data[o + 2] = v;
        img.data[o + 3] = 255;
      }
    }
  });
  ctx.putImageData(img, 0, 0);
}

function drawClasses(canvas: HTMLCanvasElement, classes: number[]): void {
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  classes.forEach((c, i) => {
    ctx.fillStyle = CLASS_COLOURS[c % CLASS_COLOURS.length];
    ctx.fillRect(i, 0, 1, 1);
  });
}

/** Builds the view in `#samplers` once the page has its catalog. */
export function mountSamplers(samplers: SamplerEntry[], asset: (name: string) => string, lanes: () => LaneSource[]): SamplerView {
  const root = $('#samplers-body');
  return new SamplerView(
    root,
    samplers,
    () => new Worker(new URL('../workers/samplerWorker.ts', import.meta.url), { type: 'module', name: 'samplers' }) as unknown as WorkerLike,
    { asset, page: (path) => new URL(path, document.baseURI).href },
    lanes,
    gpuAdapterName,
  );
}
