// The AIS / RAISE bracket of the lane's test log-likelihood, for models of any size (the exact
// curve needs a smaller layer of at most `exact_bits` units): a button, progress with Cancel,
// and the result — AIS above, RAISE below, the exact value between them when it exists. The
// work runs in the lane's worker between its training slices (runner.ts), never here.

import type { LaneHandle } from '../../app/lane';
import { formatDuration } from '../../app/progress';
import {
  BETA_CHOICES,
  betaChoice,
  betasText,
  bracketVerdict,
  DEFAULT_ESTIMATE,
  type EstimateReport,
  formatEstimateProgress,
  formatNats,
  formatSide,
  PARTICLE_CHOICES,
  RAISE_NOTE,
  SM2008_BETAS,
} from '../../protocol/estimate';
import { el, setAttr, setText } from '../dom';
import type { LanePanel, PanelContext, PanelKind } from './panel';

function choice(id: string, label: string, values: readonly number[], value: number): [HTMLLabelElement, HTMLSelectElement] {
  const select = el('select', { id });
  select.append(...values.map((v) => new Option(v.toLocaleString('en'), String(v), v === value, v === value)));
  return [el('label', { htmlFor: id }, label), select];
}

class AisPanel implements LanePanel {
  private root!: HTMLElement;
  private run!: HTMLButtonElement;
  private cancel!: HTMLButtonElement;
  private particles!: HTMLSelectElement;
  private betas!: HTMLSelectElement;
  private bar!: HTMLProgressElement;
  private progress!: HTMLElement;
  private result!: HTMLElement;
  private lane: LaneHandle | null = null;
  private shown: EstimateReport | null | undefined;
  private every!: HTMLInputElement;
  private everyOn!: HTMLInputElement;
  private schedule!: HTMLElement;

  mount(container: HTMLElement, ctx: PanelContext): void {
    const [pl, particles] = choice(`${ctx.idPrefix}-ais-particles`, 'particles', PARTICLE_CHOICES, DEFAULT_ESTIMATE.particles);
    const [bl, betas] = choice(`${ctx.idPrefix}-ais-betas`, 'β', BETA_CHOICES, DEFAULT_ESTIMATE.betas);
    // Salakhutdinov & Murray's 14 501 β, denser near β = 1 (their MNIST protocol, with 100 particles).
    betas.append(new Option(`${SM2008_BETAS.toLocaleString('en')} (Salakhutdinov & Murray)`, 'sm2008'));
    this.particles = particles;
    this.betas = betas;
    this.run = el('button', { type: 'button', className: 'ais-run', textContent: 'Estimate log-likelihood (AIS)' });
    this.cancel = el('button', { type: 'button', className: 'ais-cancel', textContent: 'Cancel', hidden: true });
    this.bar = el('progress', { className: 'ais-bar', max: 1, value: 0, hidden: true });
    this.progress = el('span', { className: 'ais-progress' });
    this.result = el('div', { className: 'ais-result' });
    this.run.addEventListener('click', () => {
      this.lane?.estimateLikelihood({ particles: Number(this.particles.value), ...betaChoice(this.betas.value), seed: DEFAULT_ESTIMATE.seed });
    });
    this.cancel.addEventListener('click', () => this.lane?.cancelEstimate());
    // "AIS every N updates": brackets over training, drawn on the chart as points with bars.
    this.everyOn = el('input', { type: 'checkbox', id: `${ctx.idPrefix}-ais-auto`, className: 'ais-auto' });
    this.every = el('input', { type: 'number', id: `${ctx.idPrefix}-ais-every`, className: 'ais-every', min: '1', step: '1', value: '40' });
    this.every.setAttribute('aria-label', 'updates between two brackets');
    this.every.style.width = '6em';
    const apply = () => {
      const n = Number(this.every.value);
      this.lane?.setAisEvery(this.everyOn.checked && Number.isInteger(n) && n >= 1 ? n : null);
    };
    this.everyOn.addEventListener('change', apply);
    this.every.addEventListener('change', apply);
    this.schedule = el('span', { className: 'ais-schedule' });
    this.root = el(
      'div',
      { className: 'ais' },
      el('div', { className: 'ais-controls' }, pl, particles, ' ', bl, betas, ' ', this.run, ' ', this.cancel),
      el(
        'div',
        { className: 'ais-auto-row' },
        el('label', { htmlFor: this.everyOn.id }, this.everyOn, ' AIS every'),
        ' ',
        this.every,
        ' updates (100 particles × 1 000 β; training waits for each; the chart plots them) ',
        this.schedule,
      ),
      el('div', {}, this.bar, ' ', this.progress),
      this.result,
    );
    container.append(this.root);
  }

  update(lane: LaneHandle): void {
    this.lane = lane;
    this.everyOn.checked = lane.aisEvery !== null;
    if (lane.aisEvery !== null && document.activeElement !== this.every) this.every.value = String(lane.aisEvery);
    setText(this.schedule, scheduleText(lane));
    const idle = lane.estimate?.state !== 'running';
    this.run.disabled = !idle || lane.gen === 0 || lane.status === 'loading' || lane.status === 'fatal';
    const r = lane.estimate;
    if (r === this.shown) return;
    this.shown = r;
    setAttr(this.root, 'data-state', r ? r.state : 'none');
    this.cancel.hidden = idle;
    this.bar.hidden = r?.state !== 'running';
    this.bar.value = r && r.total > 0 ? r.done / r.total : 0;
    if (!r) {
      setText(this.progress, '');
      this.result.replaceChildren();
      return;
    }
    const what = r.phase === 'ais' ? 'AIS' : 'RAISE';
    const words: Record<EstimateReport['state'], string> = {
      running: `${what}: ${formatEstimateProgress(r.done, r.total)}`,
      done: `done in ${formatDuration(r.ms)}`,
      cancelled: 'cancelled',
      failed: `failed: ${r.error ?? 'unknown error'}`,
    };
    setText(this.progress, words[r.state]);
    const lines: HTMLElement[] = [];
    if (r.ais) lines.push(el('div', { className: 'ais-upper', title: "AIS's estimate, ±3σ: high on average" }, `${formatSide(r.ais)} (upper side)`));
    if (r.exact !== null) lines.push(el('div', { className: 'ais-exact' }, `exact ${formatNats(r.exact)}`));
    if (r.raise) lines.push(el('div', { className: 'ais-lower', title: "RAISE's stochastic lower bound, ±3σ" }, `${formatSide(r.raise)} (lower side)`));
    if (r.ais && r.raise) lines.push(el('div', { className: 'ais-verdict' }, bracketVerdict(r.exact, r.ais, r.raise)));
    const s = r.settings;
    lines.push(
      el(
        'div',
        { className: 'ais-settings' },
        `average log-likelihood of ${r.dataset} at update ${r.iter.toLocaleString('en')} · ${s.particles} particles × ${betasText(s)}, seed ${s.seed}${gpuLabel(r)}`,
      ),
    );
    if (r.raise) lines.push(el('div', { className: 'ais-note' }, RAISE_NOTE));
    this.result.replaceChildren(...lines);
    const num = (name: string, x: number | null | undefined) => setAttr(this.root, `data-${name}`, x === null || x === undefined ? '' : String(x));
    num('ais', r.ais?.atll);
    num('ais-lo', r.ais?.atll_lo);
    num('ais-hi', r.ais?.atll_hi);
    num('raise', r.raise?.atll);
    num('raise-lo', r.raise?.atll_lo);
    num('raise-hi', r.raise?.atll_hi);
    num('exact', r.exact);
    num('ms', r.ms);
    num('iter', r.iter);
  }
}

export const aisPanel: PanelKind = {
  name: 'ais',
  title: 'AIS log-likelihood estimate',
  help: "Brackets the log-likelihood on the test digits when it cannot be computed exactly: AIS from above, RAISE from below, run in the lane's worker.",
  term: 'ais',
  create: () => new AisPanel(),
};

/** " · on the GPU (…)" when the estimate's chains ran on the lane's GPU (f32, the GPU's own
 * random streams), else nothing: the CPU's f64 numbers. */
function gpuLabel(r: EstimateReport): string {
  const gpu = r.ais?.gpu ?? r.raise?.gpu;
  return gpu ? ` · on the GPU (WebGPU, f32): ${gpu}` : '';
}

/** Where the lane's AIS schedule stands: the bracket under way, or how many are done. */
export function scheduleText(lane: Pick<LaneHandle, 'aisEvery' | 'brackets' | 'scheduled'>): string {
  const r = lane.scheduled;
  if (r?.state === 'running')
    return `· bracket at update ${r.iter.toLocaleString('en')}: ${r.phase === 'ais' ? 'AIS' : 'RAISE'} ${formatEstimateProgress(r.done, r.total)}`;
  if (r?.state === 'failed') return `· the bracket at update ${r.iter.toLocaleString('en')} failed: ${r.error ?? 'unknown error'}`;
  const n = lane.brackets.length;
  if (lane.aisEvery === null && n === 0) return '';
  const last = lane.brackets[n - 1];
  return n
    ? `· ${n} bracket${n === 1 ? '' : 's'}, the latest at update ${last.iter.toLocaleString('en')}: ${formatSide(last.ais)}, ${formatSide(last.raise)}`
    : '· no bracket yet (the first is at update 0, once the lane runs)';
}
