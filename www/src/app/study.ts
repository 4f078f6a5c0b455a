// A study: every lane run as R independent trials, seeded as `rbm reproduce` seeds them (trial
// i of a lane uses the core's trial_seed(seed, i) and the lane's index as its stream), and the
// statistics across trials at each checkpoint — quantiles, mean, sweeps, the algorithms'
// statistics — computed as the core's `aggregate` computes them, operation for operation, so
// a finished study's bands are the CLI's numbers bit for bit. DOM-free: the page's trial pool
// (trialPool.ts) feeds it points, the chart and the claims read it.
//
// While trials run, a checkpoint's band is over the trials that have reached it (a trial that
// diverged counts as −∞ at the checkpoints it never reached, as in the CLI); so the band grows
// to the right as the first trials advance and fills in as more arrive. Trials are handed out
// trial-major, the lanes interleaved (trial 0 of every lane, then trial 1 of every lane, …),
// so every lane's band grows together.
import type { Aggregate, BandPoint, LaneBand, StatSpec, Verdict } from '../generated/core';
import type { TrialTaus } from '../protocol/messages';
import type { Curve } from './curve';

/** One record of a trial: its update, Gibbs sweeps, exact ATLL, statistics, and the
 * milliseconds its worker had spent training it by then. */
export interface TrialPoint {
  iter: number;
  sweeps: number;
  atll: number;
  stats: Record<string, number>;
  ms: number;
}

export type TrialState = 'queued' | 'running' | 'done' | 'failed';

export interface Trial {
  lane: number;
  index: number;
  state: TrialState;
  points: TrialPoint[];
  /** Whether it stopped before the last checkpoint (its model diverged). */
  diverged: boolean;
  /** Why it failed (a bug or a refused configuration), when it did. */
  message: string | null;
  /** Milliseconds its worker spent on it so far. */
  ms: number;
  /** A trial measured by the study (AIS at each checkpoint): its worker's milliseconds with the
   * estimates (`ms` is training alone); the time left counts these. */
  wallMs?: number;
  /** UCD's stopping times at its latest update (the τ histogram), if its algorithm has them. */
  taus?: TrialTaus;
  /** The GPU adapter it runs on (issue 30); null or absent: the CPU's wasm core. */
  gpu?: string | null;
  /** Why it runs on the CPU though its lane asked for the GPU, when it does. */
  notice?: string | null;
}

/** Where a study's trials ran: the GPU adapters, the trials on each device, and why trials
 * asked for the GPU ran on the CPU. */
export interface StudyDevices {
  gpus: string[];
  onGpu: number;
  onCpu: number;
  notices: string[];
}

/** The study's device line (shown beside its progress), or null for a study whose trials all
 * ran on the CPU as asked (a CPU study reads as before): where its trials ran, that a GPU
 * study's numbers are its own, and why trials asked for the GPU ran on the CPU. */
export function deviceNote(d: StudyDevices): string | null {
  if (d.gpus.length === 0 && d.notices.length === 0) return null;
  const own = d.gpus.length
    ? " A GPU study's numbers are its own (f32, the GPU's random streams): not the CPU's, nor those of `rbm reproduce` on another device."
    : '';
  const why = d.notices.length ? ` ${d.notices.join(' ')}` : '';
  return `Device: ${devicesText(d)}.${own}${why}`;
}

/** How a study's devices read (the CLI's header says `gpu: <adapter>`): "GPU (WebGPU, f32):
 * <adapter>", with the trials on the CPU counted when some are; "CPU (wasm)" when none ran on a
 * GPU. */
export function devicesText(d: StudyDevices): string {
  if (d.gpus.length === 0) return 'CPU (wasm)';
  const cpu = d.onCpu > 0 ? `; ${d.onCpu} trial${d.onCpu === 1 ? '' : 's'} on the CPU (wasm)` : '';
  return `GPU (WebGPU, f32): ${d.gpus.join(', ')}${cpu}`;
}

/** One lane of a study. */
export interface StudyLane {
  /** The lane's id (its stream index). */
  id: number;
  /** The name shown (a preset's label, e.g. "CD-1"). */
  label: string;
  /** The name a preset's claims use (its label in the preset), or null. */
  claimLabel: string | null;
  /** The algorithm's statistics (how each combines across trials). */
  stats: StatSpec[];
}

/** The across-trial statistics of one lane at one checkpoint (the CLI's `Checkpoint`). */
export interface Band {
  iter: number;
  median: number;
  q025: number;
  q10: number;
  q90: number;
  q975: number;
  mean: number;
  /** Trials behind it: those that reached this checkpoint or diverged before it. */
  trials: number;
  diverged: number;
  /** Mean sweeps per chain over the trials still running (alive). */
  sweeps: number;
  /** Mean training seconds over the alive trials. */
  seconds: number;
  stats: Record<string, number>;
  /** Each statistic's median and q10–q90 band across the trials that reached this checkpoint
   * (e.g. UCD's mean τ over the updates since the previous checkpoint). */
  statBands: Record<string, { median: number; q10: number; q90: number }>;
}

/** The updates at which a run of `iters` updates is evaluated (the core's `schedule`). */
export function schedule(iters: number, every: number): number[] {
  const e = Math.max(1, Math.floor(every));
  const s: number[] = [];
  for (let k = 0; k * e <= iters; k++) s.push(k * e);
  if (iters % e !== 0) s.push(iters);
  return s;
}

/**
 * The `p`-quantile of ascending `sorted` values, interpolating between order statistics at
 * p·(N−1) (type 7) — the core's `quantile`, operation for operation: an interpolation
 * touching −∞ gives −∞; NaN for no values.
 */
export function quantile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = Math.min(1, Math.max(0, p)) * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  const frac = pos - lo;
  const a = sorted[lo];
  const b = sorted[hi];
  if (frac === 0 || a === b || a === Number.NEGATIVE_INFINITY) return a;
  return a + (b - a) * frac;
}

/** A running combination of a statistic's values (the core's `Accumulator`). */
class Accumulator {
  private sum = 0;
  private count = 0;
  constructor(private readonly how: Aggregate) {}
  add(x: number): void {
    if (this.how === 'max') {
      // f64::max: NaN loses to a number.
      this.sum = this.count === 0 ? x : Number.isNaN(this.sum) ? x : Number.isNaN(x) ? this.sum : Math.max(this.sum, x);
    } else {
      this.sum += x;
    }
    this.count += 1;
  }
  value(): number {
    if (this.count === 0) return Number.NaN;
    return this.how === 'max' ? this.sum : this.sum / this.count;
  }
}

const byTotalOrder = (a: number, b: number) => a - b || 0;

/**
 * The band of `trials` at checkpoint `k` (update `iter`), over the trials that reached it and
 * the finished ones that diverged before it, or null when none has. `stats` says how each
 * statistic combines across trials (an undeclared one is averaged).
 */
export function bandAt(trials: readonly Trial[], k: number, iter: number, stats: StatSpec[]): Band | null {
  const atll: number[] = [];
  let sweeps = 0;
  let ms = 0;
  let alive = 0;
  let diverged = 0;
  const acc = new Map<string, Accumulator>();
  const values = new Map<string, number[]>();
  for (const t of trials) {
    const r = t.points[k];
    if (!r) {
      if (t.state === 'done' && t.diverged) {
        atll.push(Number.NEGATIVE_INFINITY);
        diverged += 1;
      }
      continue;
    }
    atll.push(r.atll);
    alive += 1;
    sweeps += r.sweeps;
    ms += r.ms;
    // The core walks a record's statistics in key order (a BTreeMap).
    for (const key of Object.keys(r.stats).sort()) {
      let a = acc.get(key);
      if (!a) {
        a = new Accumulator(stats.find((s) => s.key === key)?.over_trials ?? 'mean');
        acc.set(key, a);
      }
      a.add(r.stats[key]);
      const v = values.get(key);
      if (v) v.push(r.stats[key]);
      else values.set(key, [r.stats[key]]);
    }
  }
  if (atll.length === 0) return null;
  atll.sort(byTotalOrder);
  let sum = 0;
  for (const a of atll) sum += a;
  const per = (s: number) => (alive > 0 ? s / alive : Number.NaN);
  const out: Record<string, number> = {};
  for (const key of [...acc.keys()].sort()) out[key] = (acc.get(key) as Accumulator).value();
  const statBands: Band['statBands'] = {};
  for (const [key, v] of values) {
    v.sort(byTotalOrder);
    statBands[key] = { median: quantile(v, 0.5), q10: quantile(v, 0.1), q90: quantile(v, 0.9) };
  }
  return {
    iter,
    median: quantile(atll, 0.5),
    q025: quantile(atll, 0.025),
    q10: quantile(atll, 0.1),
    q90: quantile(atll, 0.9),
    q975: quantile(atll, 0.975),
    mean: diverged > 0 ? Number.NEGATIVE_INFINITY : sum / Math.max(1, atll.length),
    trials: atll.length,
    diverged,
    sweeps: per(sweeps),
    seconds: per(ms) / 1000,
    stats: out,
    statBands,
  };
}

/** What a study is of: its lanes, trials per lane, length, evaluation interval and seed. */
export interface StudyPlan {
  lanes: StudyLane[];
  runs: number;
  /** Updates per trial. */
  until: number;
  every: number;
  seed: number;
}

/** Progress of a whole study. */
export interface StudyProgress {
  done: number;
  running: number;
  failed: number;
  total: number;
  /** Share of the work done, 0..1 (updates, weighted by each lane's measured cost). */
  fraction: number;
  /** Estimated milliseconds left of worker time divided over `workers`, or null before any
   * measurement. */
  etaMs: number | null;
}

export class Study {
  readonly trials: Trial[][];
  readonly checkpoints: number[];
  /** Bands per lane, recomputed when points arrive (`bands(lane)`). */
  private cache = new Map<number, (Band | null)[]>();
  /** The largest share of the work `progress` has said so far: the share it says never goes
   * back when a lane's measured cost changes the weights (issue 27: the percentage went
   * backwards). Reset when a trial is requeued (its work is undone). */
  private shownFraction = 0;
  /** Lanes whose trials `next` does not hand out (a GPU job runs or may run them). */
  readonly held = new Set<number>();

  constructor(readonly plan: StudyPlan) {
    this.trials = plan.lanes.map((_, lane) =>
      Array.from({ length: plan.runs }, (_, index) => ({ lane, index, state: 'queued' as TrialState, points: [], diverged: false, message: null, ms: 0 })),
    );
    this.checkpoints = schedule(plan.until, plan.every);
  }

  /** The next trial to run (marked running), or null when every trial is handed out. Trial-major
   * (every lane's trial k before any lane's trial k + 1), so every band grows together; within a
   * round the lane that costs most per update so far goes first (lanes not measured yet first of
   * all, in plan order), so a study's last trials are its cheapest and the workers finish
   * together instead of one running the last long trial alone. A requeued trial is handed out
   * again before any later round. */
  next(): Trial | null {
    const cost = this.plan.lanes.map((_, lane) => this.msPerUpdate(lane) ?? Number.POSITIVE_INFINITY);
    for (let index = 0; index < this.plan.runs; index++) {
      let best: Trial | null = null;
      for (const ts of this.trials) {
        const t = ts[index];
        if (this.held.has(t.lane)) continue;
        if (t.state === 'queued' && (best === null || cost[t.lane] > cost[best.lane])) best = t;
      }
      if (best) {
        best.state = 'running';
        return best;
      }
    }
    return null;
  }

  /** The queued trials of `lane`, marked running (a GPU job runs them all at once). */
  take(lane: number): Trial[] {
    const out = this.trials[lane].filter((t) => t.state === 'queued');
    for (const t of out) t.state = 'running';
    return out;
  }

  /** A running trial goes back to the queue (its worker was stopped): it starts again. */
  requeue(t: Trial): void {
    if (t.state !== 'running') return;
    t.state = 'queued';
    t.points = [];
    t.ms = 0;
    this.shownFraction = 0;
    this.cache.delete(t.lane);
  }

  /** The lane's measured milliseconds per update over its trials so far, or null before any. */
  private msPerUpdate(lane: number): number | null {
    let ms = 0;
    let updates = 0;
    for (const t of this.trials[lane]) {
      const last = t.points[t.points.length - 1];
      if (last && last.iter > 0) {
        ms += t.wallMs ?? t.ms;
        updates += last.iter;
      }
    }
    return updates > 0 ? ms / updates : null;
  }

  /** Points of a running trial, in update order (each checkpoint once). */
  add(t: Trial, points: TrialPoint[], ms: number, wallMs?: number): void {
    for (const p of points) {
      const k = t.points.length;
      if (k < this.checkpoints.length && p.iter === this.checkpoints[k]) t.points.push(p);
    }
    t.ms = Math.max(t.ms, ms);
    if (wallMs !== undefined) t.wallMs = Math.max(t.wallMs ?? 0, wallMs);
    this.cache.delete(t.lane);
  }

  /** Where trial `t` runs (`gpu`: the adapter; null: the CPU) and why not where asked
   * (`notice`); `restart`: its points so far are dropped (its GPU failed: it runs again on the
   * CPU from update 0). */
  device(t: Trial, gpu: string | null, notice: string | null, restart: boolean): void {
    t.gpu = gpu;
    t.notice = notice;
    if (restart) {
      t.points = [];
      t.ms = 0;
      t.wallMs = undefined;
    }
    this.cache.delete(t.lane);
  }

  /** Where the trials that started ran: the GPU adapters, the trials on each device and the
   * notices of those asked for the GPU that ran on the CPU. */
  devices(): StudyDevices {
    const gpus = new Set<string>();
    const notices = new Set<string>();
    let onGpu = 0;
    let onCpu = 0;
    for (const ts of this.trials)
      for (const t of ts) {
        if (t.state === 'queued') continue;
        if (t.gpu) {
          gpus.add(t.gpu);
          onGpu += 1;
        } else onCpu += 1;
        if (t.notice) notices.add(t.notice);
      }
    return { gpus: [...gpus], onGpu, onCpu, notices: [...notices] };
  }

  /** The trial ended: `diverged` when it stopped early; `message` when it failed. */
  finish(t: Trial, ms: number, message: string | null = null): void {
    t.ms = Math.max(t.ms, ms);
    if (message !== null) {
      t.state = 'failed';
      t.message = message;
    } else {
      t.state = 'done';
      t.diverged = t.points.length < this.checkpoints.length;
    }
    this.cache.delete(t.lane);
  }

  /** The lane's band at each checkpoint (null where no trial has reached it yet). */
  bands(lane: number): (Band | null)[] {
    let b = this.cache.get(lane);
    if (!b) {
      const stats = this.plan.lanes[lane].stats;
      const trials = this.trials[lane];
      b = this.checkpoints.map((iter, k) => bandAt(trials, k, iter, stats));
      this.cache.set(lane, b);
    }
    return b;
  }

  /** Whether every trial has ended. */
  finished(): boolean {
    return this.trials.every((ts) => ts.every((t) => t.state === 'done' || t.state === 'failed'));
  }

  /** Trials done, running and failed, and the estimated time left with `workers` workers. */
  progress(workers: number): StudyProgress {
    let done = 0;
    let running = 0;
    let failed = 0;
    let total = 0;
    let workDone = 0;
    let workLeft = 0;
    let msLeft = 0;
    // The longest single trial left: no number of workers finishes sooner than it (a study's
    // last trial runs alone; dividing by the workers alone promised too little time).
    let longest = 0;
    let measured = true;
    const until = Math.max(1, this.plan.until);
    for (const [lane, ts] of this.trials.entries()) {
      const perUpdate = this.msPerUpdate(lane);
      if (perUpdate === null) measured = false;
      for (const t of ts) {
        total += 1;
        const at = t.state === 'done' || t.state === 'failed' ? until : (t.points[t.points.length - 1]?.iter ?? 0);
        if (t.state === 'done') done += 1;
        else if (t.state === 'failed') failed += 1;
        else if (t.state === 'running') running += 1;
        const w = perUpdate ?? 1;
        workDone += w * at;
        workLeft += w * (until - at);
        if (perUpdate !== null) {
          msLeft += perUpdate * (until - at);
          longest = Math.max(longest, perUpdate * (until - at));
        }
      }
    }
    const fraction = Math.max(this.shownFraction, workDone + workLeft > 0 ? workDone / (workDone + workLeft) : 0);
    this.shownFraction = fraction;
    const finished = done + failed === total;
    return {
      done,
      running,
      failed,
      total,
      fraction: finished ? 1 : fraction,
      etaMs: finished ? 0 : measured ? Math.max(msLeft / Math.max(1, workers), longest) : null,
    };
  }

  /** The lanes' bands as the core's claims read them (lanes with a claim label only). */
  claimBands(): LaneBand[] {
    const out: LaneBand[] = [];
    this.plan.lanes.forEach((l, i) => {
      if (l.claimLabel === null) return;
      const points: BandPoint[] = [];
      for (const b of this.bands(i)) {
        if (b === null) break;
        points.push({ iter: b.iter, median: b.median, stats: b.stats });
      }
      const end = this.bands(i)[this.checkpoints.length - 1];
      out.push({ label: l.claimLabel, trials: end?.trials ?? 0, points });
    });
    return out;
  }

  /** The last checkpoint. */
  get end(): number {
    return this.checkpoints[this.checkpoints.length - 1] ?? 0;
  }
}

/** A duration for people: "45 s", "3 min 20 s", "1 h 05 min". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** The study's progress in one line, e.g. "12 of 75 trials done, 3 running — about 4 min 10 s left". */
export function progressText(p: StudyProgress): string {
  const parts = [`${p.done} of ${p.total} trial${p.total === 1 ? '' : 's'} done`];
  if (p.running) parts.push(`${p.running} running`);
  if (p.failed) parts.push(`${p.failed} failed`);
  let text = parts.join(', ');
  text += ` (${Math.floor(100 * p.fraction)}%)`;
  if (p.done + p.failed < p.total) text += p.etaMs === null ? ' — estimating the time left…' : ` — about ${formatDuration(p.etaMs)} left`;
  return text;
}

/**
 * What failed trials (a worker that died, a panic, a refused configuration) cost the study and
 * what it keeps, in one line; null when no trial failed. Trials are numbered as the exports
 * number them.
 */
export function lossText(study: Study): string | null {
  const failed = study.trials.flat().filter((t) => t.state === 'failed');
  if (!failed.length) return null;
  const name = (t: Trial) => `trial ${t.index} of ${study.plan.lanes[t.lane].label}`;
  const kept = (t: Trial) => {
    const last = t.points[t.points.length - 1];
    return last ? `its records to update ${last.iter.toLocaleString('en')} are kept` : 'it had no record yet';
  };
  const first = failed[0];
  const what =
    failed.length === 1
      ? `Lost: the rest of ${name(first)} (${first.message ?? 'failed'}); ${kept(first)}, marked failed.`
      : `Lost: the rest of ${failed.length} failed trials (the first, ${name(first)}: ${first.message ?? 'failed'}); their records so far are kept, marked failed.`;
  return `${what} Kept: every other trial's records; the bands are over the trials that reached each update. The CSV and JSON downloads hold all of it.`;
}

/** A lane's line on its card during a study: its trials and its latest median and band. */
export function laneStudyLine(study: Study, id: number): string {
  const lane = study.plan.lanes.findIndex((l) => l.id === id);
  if (lane < 0) return '';
  const ts = study.trials[lane];
  const done = ts.filter((t) => t.state === 'done').length;
  const running = ts.filter((t) => t.state === 'running').length;
  const failed = ts.filter((t) => t.state === 'failed').length;
  const diverged = ts.filter((t) => t.diverged).length;
  const parts = [`trials: ${done} of ${ts.length} done`];
  // The trials under way move while the lane's own worker waits at update 0 (issue 27).
  const at = ts
    .filter((t) => t.state === 'running')
    .map((t) => `trial ${t.index + 1} at update ${(t.points[t.points.length - 1]?.iter ?? 0).toLocaleString('en')}`);
  if (running) parts.push(`${running} running (${at.join(', ')})`);
  if (diverged) parts.push(`${diverged} diverged`);
  if (failed) parts.push(`${failed} failed (${ts.find((t) => t.state === 'failed')?.message ?? ''})`);
  const bands = study.bands(lane);
  let last: Band | null = null;
  for (const b of bands) if (b) last = b;
  if (last) {
    const f = (v: number) => (Number.isFinite(v) ? v.toFixed(3).replace('-', '−') : 'diverged');
    parts.push(
      `median ATLL ${f(last.median)} (q10–q90 ${f(last.q10)} … ${f(last.q90)}) at update ${last.iter.toLocaleString('en')} over ${last.trials} trial${last.trials === 1 ? '' : 's'}`,
    );
  }
  return parts.join(' · ');
}

/**
 * A CSV field: quoted per RFC 4180 when it holds a double quote, a comma, a line feed or a
 * carriage return (or '#', a comment to some readers). A text field that a spreadsheet would
 * take for a formula — one starting with = + - @, a tab or a carriage return, e.g. a lane label
 * from a link, `=HYPERLINK(…)` — gets a leading ' so that it stays text; numbers stay numbers.
 */
export function csvField(v: string | number): string {
  const t = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : v > 0 ? 'inf' : v < 0 ? '-inf' : 'nan') : /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\n\r#]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
}

/**
 * Every trial's curve and statistics as CSV: first a comment line with the page's state (its
 * URL: how the file was made), then one row per record — lane, label, trial, update, Gibbs
 * sweeps, exact ATLL, then each statistic any lane reports (empty where a lane has none).
 * Numbers are printed in full (JavaScript's shortest round-trip form), so they read back to
 * the same bits.
 */
export function studyCsv(study: Study, url: string): string {
  const keys = [...new Set(study.plan.lanes.flatMap((l) => l.stats.map((s) => s.key)))];
  // A study with trials on a GPU says so (a CPU study's file is as before).
  const d = study.devices();
  const device = d.gpus.length ? `; device: ${devicesText(d)}` : '';
  const lines = [csvComment(`study: ${study.plan.runs} trials per lane, seed ${study.plan.seed}${device}`, url)];
  lines.push(['lane', 'label', 'trial', 'state', 'iter', 'sweeps', 'atll', ...keys].join(','));
  study.plan.lanes.forEach((l, i) => {
    for (const t of study.trials[i]) {
      for (const p of t.points) {
        lines.push([l.id, l.label, t.index, t.state, p.iter, p.sweeps, p.atll, ...keys.map((k) => (k in p.stats ? p.stats[k] : ''))].map(csvField).join(','));
      }
    }
  });
  return `${lines.join('\n')}\n`;
}

/** A CSV file's first line: what it holds and the page's state (its URL: how it was made),
 * kept on one line whatever the address holds. */
function csvComment(what: string, url: string): string {
  return `# RBM Playground ${what}; page state: ${url.replace(/[\r\n]/g, encodeURIComponent)}`;
}

/** A live lane as its curve's CSV names it. */
export interface CurveLane {
  id: number;
  label: string;
  /** The lane's status when the file was made (e.g. `fatal`: its worker died). */
  status: string;
  curve: Curve;
}

/**
 * A live lane's curve as CSV, as the page holds it (the chart's points: beyond 1500, every
 * other one was dropped): a comment line with the page's state, then one row per point — lane,
 * label, state, update, Gibbs sweeps, exact ATLL, numbers in full as in `studyCsv`. What the
 * page keeps of a lane whose worker died.
 */
export function curveCsv(lane: CurveLane, url: string): string {
  const lines = [csvComment(`curve of lane ${lane.id}`, url), 'lane,label,state,iter,sweeps,atll'];
  const c = lane.curve;
  for (const [i, iter] of c.iter.entries()) lines.push([lane.id, lane.label, lane.status, iter, c.sweeps[i], c.atll[i]].map(csvField).join(','));
  return `${lines.join('\n')}\n`;
}

/**
 * Every live lane's curve as one CSV (the rows of `curveCsv`, lane after lane), with the page's
 * state in its first line: what a run without trials exports (issue 27).
 */
export function runCsv(lanes: CurveLane[], url: string): string {
  const lines = [csvComment(`run: ${lanes.length} lane${lanes.length === 1 ? '' : 's'}, one live run each`, url), 'lane,label,state,iter,sweeps,atll'];
  for (const lane of lanes) {
    const c = lane.curve;
    for (const [i, iter] of c.iter.entries()) lines.push([lane.id, lane.label, lane.status, iter, c.sweeps[i], c.atll[i]].map(csvField).join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** A live lane as the run's JSON names it: its algorithm and options too. */
export interface RunLane extends CurveLane {
  algo: string;
  options: Record<string, number | string | null>;
}

/** Every live lane's records as JSON, with the page's state (URL) and each lane's algorithm and
 * options; numbers in full (non-finite ones as strings). */
export function runJson(lanes: RunLane[], url: string): string {
  const num = (v: number) => (Number.isFinite(v) ? v : String(v));
  return JSON.stringify(
    {
      made_by: 'RBM Playground',
      url,
      lanes: lanes.map((l) => ({
        id: l.id,
        label: l.label,
        algo: l.algo,
        status: l.status,
        options: l.options,
        records: l.curve.iter.map((iter, i) => ({ iter, sweeps: l.curve.sweeps[i], atll: num(l.curve.atll[i]) })),
      })),
    },
    null,
    1,
  );
}

/** The study as JSON: the page's state (URL), the plan, every trial's records and every band,
 * and the paper's claims with their verdicts on these bands and the numbers behind each (the
 * core's `evaluateClaims`; empty without a preset with claims). */
export function studyJson(study: Study, url: string, claims: Verdict[] = []): string {
  const num = (v: number) => (Number.isFinite(v) ? v : String(v));
  return JSON.stringify(
    {
      made_by: 'RBM Playground',
      url,
      plan: study.plan,
      // Where the trials ran (the CLI's header says `"device": "gpu: <adapter>"`): a GPU
      // study's numbers are its own (f32, the GPU's random streams), not the CPU's.
      device: devicesText(study.devices()),
      claims: claims.map((v) => ({ claim: v.claim, status: v.status, holds: v.holds, trials: v.trials, detail: v.detail })),
      checkpoints: study.checkpoints,
      lanes: study.plan.lanes.map((l, i) => ({
        id: l.id,
        label: l.label,
        trials: study.trials[i].map((t) => ({
          trial: t.index,
          state: t.state,
          device: t.gpu ? `gpu: ${t.gpu}` : 'cpu',
          diverged: t.diverged,
          message: t.message,
          records: t.points,
        })),
        bands: study
          .bands(i)
          .map((b) => b && { ...b, median: num(b.median), q025: num(b.q025), q10: num(b.q10), q90: num(b.q90), q975: num(b.q975), mean: num(b.mean) }),
      })),
    },
    null,
    1,
  );
}

/** The τ histogram of lane `lane` across its trials: each trial's stopping times at its latest
 * update, summed (counts by τ), with the trials that have them and the range of their updates;
 * null when no trial has any (the lane's algorithm has no stopping times, or nothing ran yet). */
export function studyTaus(study: Pick<Study, 'trials'>, lane: number): { counts: number[]; trials: number; from: number; to: number } | null {
  const have = (study.trials[lane] ?? []).map((t) => t.taus).filter((t): t is TrialTaus => t !== undefined);
  if (!have.length) return null;
  const counts = new Array(Math.max(...have.map((t) => t.counts.length))).fill(0);
  for (const t of have) for (const [i, c] of t.counts.entries()) counts[i] += c;
  return { counts, trials: have.length, from: Math.min(...have.map((t) => t.iter)), to: Math.max(...have.map((t) => t.iter)) };
}
