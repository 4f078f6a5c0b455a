// "Explore where the claims hold" (issue 29): the page runs a claims-explorer grid itself for a
// preset on a small data set. The user picks two of the explorer's axes that the preset's lanes
// read, a few values of each (defaults around the preset's own), trials per cell and updates;
// the panel shows the cost model's estimate before anything runs, then the grid's progress
// (cells done, time left) with Cancel, and per claim a map over the two axes (claimMapTable.ts)
// labelled as this page's run, with its settings and the `rbm explore` command that reproduces
// every cell. The work is in the trial workers (explorerRun.ts); this file only draws and reads
// fields.
import type { App, ExplorerEnv } from '../app/app';
import { type Axis, claimMaps } from '../app/claimMap';
import {
  AXIS_INFO,
  defaultValues,
  exploreAxes,
  exploreCommand,
  exploreRefusal,
  type GridChoice,
  gridRequest,
  gridSizeProblem,
  MAX_CELL_TRIALS,
  MAX_EXPLORE_ITERS,
  ownValue,
  parseCount,
  parseValues,
  valuesText,
} from '../app/explorerGrid';
import { ExplorerRun } from '../app/explorerRun';
import { formatDuration } from '../app/study';
import type { ErrorInfo, ExplorePlan, PresetEntry } from '../generated/core';
import { isErrorInfo } from '../protocol/messages';
import { mapTable } from './claimMapTable';
import { $, el, errorFor, setText, showError } from './dom';

/** The field of the panel that a core error's key names (besides the two axes' flags and
 * option keys, e.g. `ks` or `k`). */
const FIELD_OF: Record<string, string> = { runs: 'trials', iters: 'iters', every: 'iters' };

export class ExplorerPanel {
  private readonly root = $('#explore');
  private readonly refusal = el('p', { id: 'explore-refusal', className: 'claims-note' });
  private readonly form = el('div', { className: 'explore-form' });
  private readonly xPick = el('select', { id: 'explore-x' });
  private readonly yPick = el('select', { id: 'explore-y' });
  private readonly xValues = el('input', { id: 'explore-xs', type: 'text', autocomplete: 'off' });
  private readonly yValues = el('input', { id: 'explore-ys', type: 'text', autocomplete: 'off' });
  private readonly trials = el('input', { id: 'explore-trials', type: 'text', inputMode: 'numeric', autocomplete: 'off', value: '3' });
  private readonly iters = el('input', { id: 'explore-iters', type: 'text', inputMode: 'numeric', autocomplete: 'off' });
  private readonly errors: Record<string, HTMLElement> = {};
  private readonly estimate = el('p', { id: 'explore-estimate', className: 'claims-note', role: 'status' });
  private readonly runButton = el('button', { type: 'button', id: 'explore-run' }, 'Run the grid');
  private readonly cancelButton = el('button', { type: 'button', id: 'explore-cancel', hidden: true }, 'Cancel');
  private readonly progress = el('p', { id: 'explore-progress', className: 'study-progress', role: 'status', hidden: true });
  private readonly result = el('div', { id: 'explore-result', hidden: true });
  private readonly note = el('p', { id: 'explore-note', className: 'claims-note' });
  private readonly failed = el('p', { id: 'explore-failed', className: 'study-lost', role: 'alert', hidden: true });
  private readonly maps = el('div', { id: 'explore-maps', className: 'claim-maps-list' });

  /** The preset the fields are for (null: none). */
  private preset: string | null = null;
  private ownSigma = 0.01;
  /** The grid the fields describe, once they all read, and the core's plan of it. */
  private choice: GridChoice | null = null;
  private plan: ExplorePlan | null = null;
  private run: ExplorerRun | null = null;
  /** The run's grid (its maps' axes and its command). */
  private ran: GridChoice | null = null;
  private drawnVersion = -1;

  constructor(private readonly app: App) {
    const field = (label: string, input: HTMLInputElement | HTMLSelectElement, key: string) => {
      const error = errorFor(input, `explore-${key}-error`, 'span');
      this.errors[key] = error;
      input.addEventListener('change', () => this.read());
      return el('label', { className: 'explore-field' }, `${label} `, input, error);
    };
    this.xPick.addEventListener('change', () => this.axisChanged(this.xPick, this.xValues));
    this.yPick.addEventListener('change', () => this.axisChanged(this.yPick, this.yValues));
    this.form.append(
      el('div', {}, el('label', {}, 'Columns ', this.xPick), ' ', field('values', this.xValues, 'xs')),
      el('div', {}, el('label', {}, 'Rows ', this.yPick), ' ', field('values', this.yValues, 'ys')),
      el('div', {}, field('Trials per cell and lane', this.trials, 'trials'), ' ', field('Updates per trial', this.iters, 'iters')),
      this.estimate,
      el('div', { className: 'explore-buttons' }, this.runButton, ' ', this.cancelButton),
    );
    this.runButton.addEventListener('click', () => this.start());
    this.cancelButton.addEventListener('click', () => this.cancel());
    this.result.append(el('h4', {}, "This page's run"), this.note, this.failed, this.maps);
    this.root.append(el('h4', { id: 'explore-title' }, 'Explore where the claims hold'), this.refusal, this.form, this.progress, this.result);
  }

  private env(): ExplorerEnv | null {
    return this.app.explorerEnv();
  }

  private presetEntry(): PresetEntry | undefined {
    return this.app.catalog.presets.find((p) => p.name === this.preset);
  }

  /** The fields for preset `name`: its axes, the first two picked, default values. */
  private reset(name: string | null): void {
    this.run?.cancel();
    this.run = null;
    this.app.explorer = null;
    this.ran = null;
    this.preset = name;
    this.drawnVersion = -1;
    const p = this.presetEntry();
    const env = this.env();
    const refusal = !p ? 'no preset' : !env ? 'The page was built without the core explorer.' : exploreRefusal(p);
    this.root.hidden = !p?.claims.length;
    setText(this.refusal, p && refusal ? refusal : '');
    this.refusal.hidden = !refusal;
    this.form.hidden = refusal !== null;
    if (!p || !env || refusal) return;
    try {
      const rate = this.rate(p);
      this.ownSigma = env.core.plan(p.name, { seed: 1, trials_per_cell: 1, iters: 1, every: 1, lrs: [rate] }, 1).own_init_sigma;
    } catch {
      this.ownSigma = 0.01;
    }
    const axes = exploreAxes(p, this.app.catalog);
    const options = () => axes.map((a) => new Option(AXIS_INFO[a].label, a));
    this.xPick.replaceChildren(...options());
    this.yPick.replaceChildren(...options());
    this.xPick.value = 'lr';
    this.yPick.value = 'init_sigma';
    this.iters.value = String(p.iters);
    this.trials.value = '3';
    this.fillDefaults(this.xPick, this.xValues);
    this.fillDefaults(this.yPick, this.yValues);
    this.read();
  }

  private rate(p: PresetEntry): number {
    return p.rates[this.app.rate] ?? p.rates[0];
  }

  private fillDefaults(pick: HTMLSelectElement, input: HTMLInputElement): void {
    const p = this.presetEntry();
    if (!p) return;
    const axis = pick.value as Axis;
    const rows = this.app.catalog.data_sets.find((d) => d.name === p.data)?.rows ?? null;
    input.value = valuesText(defaultValues(axis, ownValue(p, this.app.catalog, axis, this.rate(p), this.ownSigma), rows));
  }

  private axisChanged(pick: HTMLSelectElement, input: HTMLInputElement): void {
    this.fillDefaults(pick, input);
    this.read();
  }

  /** Reads every field; shows each one's problem at it; asks the core for the plan and its
   * estimate when all read. */
  private read(): void {
    this.choice = null;
    this.plan = null;
    const p = this.presetEntry();
    const env = this.env();
    if (!p || !env) return;
    const x = this.xPick.value as Axis;
    const y = this.yPick.value as Axis;
    const messages: Record<string, string> = { xs: '', ys: '', trials: '', iters: '' };
    const xs = parseValues(x, this.xValues.value);
    const ys = parseValues(y, this.yValues.value);
    if (typeof xs === 'string') messages.xs = xs;
    if (typeof ys === 'string') messages.ys = ys;
    const trials = parseCount(this.trials.value, 'trials per cell', 1, MAX_CELL_TRIALS);
    const iters = parseCount(this.iters.value, 'updates per trial', 1, MAX_EXPLORE_ITERS);
    if (typeof trials === 'string') messages.trials = trials;
    if (typeof iters === 'string') messages.iters = iters;
    let problem: string | null = x === y ? 'Pick two different axes for the rows and the columns.' : null;
    const seed = this.app.shared.seed;
    if (typeof seed !== 'number') problem ??= "The grid's trials need a seed (as `rbm explore --seed`): set one.";
    if (!problem && typeof xs !== 'string' && typeof ys !== 'string' && typeof trials !== 'string' && typeof iters !== 'string' && typeof seed === 'number') {
      const choice: GridChoice = { preset: p.name, x, y, xs, ys, rate: this.rate(p), trials, iters, every: Math.min(p.every, iters), seed };
      problem = gridSizeProblem(choice, p.lanes.length);
      if (!problem) {
        try {
          this.plan = env.core.plan(p.name, gridRequest(choice), env.workers);
          this.choice = choice;
        } catch (e) {
          const info: ErrorInfo | null = isErrorInfo(e) ? e : null;
          const key = info?.key ?? '';
          const at = key === AXIS_INFO[x].flag || key === x ? 'xs' : key === AXIS_INFO[y].flag || key === y ? 'ys' : FIELD_OF[key];
          const message = info?.message ?? String(e);
          if (at) messages[at] = message;
          else problem = message;
        }
      }
    }
    showError(this.xValues, this.errors.xs, messages.xs);
    showError(this.yValues, this.errors.ys, messages.ys);
    showError(this.trials, this.errors.trials, messages.trials);
    showError(this.iters, this.errors.iters, messages.iters);
    const choice = this.choice as GridChoice | null;
    if (this.plan && choice) {
      const cells = this.plan.cells.length;
      const n = cells * this.plan.lanes.length * this.plan.runs;
      setText(
        this.estimate,
        `${cells} cells × ${this.plan.lanes.length} lanes × ${this.plan.runs} trial${this.plan.runs === 1 ? '' : 's'} = ${n.toLocaleString('en')} trials of ${this.plan.iters.toLocaleString('en')} updates: ${this.plan.estimate.wall_secs < 1 ? 'under a second' : `about ${formatDuration(1000 * this.plan.estimate.wall_secs)}`} on ${env.workers} worker${env.workers === 1 ? '' : 's'} (the cost model's estimate at the page's assumed speeds).`,
      );
    } else setText(this.estimate, problem ?? 'Fix the fields marked above to run the grid.');
    this.estimate.dataset.ok = String(this.plan !== null);
    this.draw();
  }

  private start(): void {
    const env = this.env();
    const p = this.presetEntry();
    if (!env || !p || this.run?.status === 'running') return;
    // The fields again, with the page's seed and rate now.
    this.read();
    if (!this.plan || !this.choice) return;
    const catalog = this.app.catalog;
    this.ran = this.choice;
    this.drawnVersion = -1;
    this.run = new ExplorerRun(
      p.name,
      p.data,
      this.plan,
      this.choice.seed,
      (algo) => catalog.algorithms.find((a) => a.name === algo)?.stats ?? [],
      env.factory,
      env.workers,
      env.core.judge,
      () => env.changed(),
    );
    this.app.explorer = this.run;
    this.draw();
  }

  private cancel(): void {
    this.run?.cancel();
    this.draw();
  }

  update(): void {
    if (this.app.preset !== this.preset) this.reset(this.app.preset);
    this.draw();
  }

  private draw(): void {
    const run = this.run;
    const running = run?.status === 'running';
    this.runButton.disabled = running || this.plan === null;
    this.cancelButton.hidden = !running;
    this.progress.hidden = !run;
    this.result.hidden = !run;
    if (!run || !this.ran) return;
    const pr = run.progress();
    const parts = [`${pr.done} of ${pr.total} cells done`];
    if (pr.failed) parts.push(`${pr.failed} failed`);
    if (pr.cancelled) parts.push(`${pr.cancelled} cancelled`);
    let text = `Grid: ${parts.join(', ')} (${Math.floor(100 * pr.fraction)}%)`;
    if (running) text += pr.etaMs === null ? ' — estimating the time left…' : ` — about ${formatDuration(pr.etaMs)} left`;
    else text += run.status === 'cancelled' ? ` — cancelled after ${formatDuration(run.elapsedMs())}` : ` — finished in ${formatDuration(run.elapsedMs())}`;
    text += ` on ${run.workers} worker${run.workers === 1 ? '' : 's'}.`;
    setText(this.progress, text);
    this.progress.dataset.status = run.status;
    if (run.version === this.drawnVersion) return;
    this.drawnVersion = run.version;
    const g = this.ran;
    const fixed = g.x !== 'lr' && g.y !== 'lr' ? `, η = ${g.rate}` : '';
    setText(
      this.note,
      `Measured in this page: \`${exploreCommand(g)}\` reproduces every cell (seed ${g.seed}, ${g.trials} trial${g.trials === 1 ? '' : 's'} per cell and lane, ${g.iters.toLocaleString('en')} updates each${fixed}; other settings the preset's own), judged as the claims above are. ✓ holds, ✗ does not hold, ? not decided, – not run; the deeper the colour, the larger the margin. Outlined: the preset's own settings.`,
    );
    const bad = run.cells.filter((c) => c.state === 'failed');
    setText(this.failed, bad.length ? `Failed: ${bad.map((c) => `cell ${c.index} (${c.message})`).join('; ')}. The other cells are kept.` : '');
    this.failed.hidden = bad.length === 0;
    const lines = run.claims();
    this.maps.replaceChildren(...(lines.length ? claimMaps(lines, g.x, g.y, {}, { xs: g.xs, ys: g.ys }).map(mapTable) : []));
  }
}
