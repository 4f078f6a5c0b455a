// The page's claims-explorer run, DOM-free (issue 29): a grid laid out by the core
// (`explorePlan`: each cell's settings and lane configurations, as `rbm explore` builds its cell
// studies) run cell by cell over a pool of trial workers (trialPool.ts; the page's thread only
// draws). Each cell is a Study (study.ts: its trials seeded as `rbm reproduce` seeds them and
// its bands computed as the core's), judged by the core when its last trial ends
// (`exploreJudge`, the `judge` of `rbm explore`), so a cell's verdicts and numbers are the
// command line's for the same grid and seed. A cell whose trial fails (a refused
// configuration, a worker that died) is marked failed and the others go on; Cancel ends every
// worker and keeps the finished cells.
import type { ExplorePlan, ExploreVerdict, LaneBand, StatSpec } from '../generated/core';
import { TrialPool } from '../workers/trialPool';
import type { ExplorerClaim } from './claimMap';
import type { WorkerFactory } from './lane';
import { Study, type Trial } from './study';

/** The core's verdicts on a finished cell's bands (wasm `exploreJudge`). */
export type JudgeCell = (preset: string, bands: LaneBand[], end: number) => ExploreVerdict[];

export type CellState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
export type ExplorerStatus = 'running' | 'done' | 'cancelled';

/** One cell under way or finished. */
export interface CellRun {
  index: number;
  study: Study;
  state: CellState;
  /** Its claims' verdicts, once judged. */
  verdicts: ExploreVerdict[] | null;
  /** Why it failed. */
  message: string | null;
}

/** How far a run is: cells done, failed, cancelled, of all; the share of the work done; the
 * estimated time left (null before any measurement). */
export interface ExplorerProgress {
  done: number;
  failed: number;
  cancelled: number;
  total: number;
  fraction: number;
  etaMs: number | null;
}

export class ExplorerRun {
  status: ExplorerStatus = 'running';
  readonly cells: CellRun[];
  /** Grows with every change (for the view's caches). */
  version = 0;
  private readonly pool: TrialPool;
  private readonly owner = new Map<Trial, CellRun>();
  private readonly started: number;
  private endedAt: number | null = null;

  constructor(
    readonly preset: string,
    readonly dataset: string,
    readonly plan: ExplorePlan,
    seed: number,
    stats: (algo: string) => StatSpec[],
    factory: WorkerFactory,
    readonly workers: number,
    private readonly judge: JudgeCell,
    private readonly changed: () => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    const lanes = plan.lanes.map((l, id) => ({ id, label: l.label, claimLabel: l.label, stats: stats(l.algo) }));
    this.cells = plan.cells.map((c) => ({
      index: c.cell,
      study: new Study({ lanes, runs: plan.runs, until: plan.iters, every: plan.every, seed }),
      state: 'queued',
      verdicts: null,
      message: null,
    }));
    this.started = now();
    this.pool = new TrialPool(factory, workers, {
      next: () => this.next(seed),
      points: (trial, points) => {
        const cell = this.owner.get(trial);
        if (cell?.state !== 'running') return;
        cell.study.add(trial, points, points[points.length - 1]?.ms ?? 0);
        this.bump();
      },
      done: (trial, ms, error) => this.trialDone(trial, ms, error),
    });
    this.pool.start();
  }

  /** The next trial: the first cell's with trials left (cells run in grid order, so finished
   * cells appear from the first on). */
  private next(seed: number) {
    for (const [i, cell] of this.cells.entries()) {
      if (cell.state !== 'queued' && cell.state !== 'running') continue;
      const t = cell.study.next();
      if (!t) continue;
      cell.state = 'running';
      this.owner.set(t, cell);
      const config = this.plan.cells[i].configs[t.lane] as Record<string, number | string>;
      return { trial: t, config, dataset: this.dataset, source: null, seed, until: this.plan.iters };
    }
    return null;
  }

  private trialDone(trial: Trial, ms: number, error: string | null): void {
    const cell = this.owner.get(trial);
    this.owner.delete(trial);
    if (cell?.state === 'running') this.settle(cell, trial, ms, error);
    if (this.cells.every((c) => c.state === 'done' || c.state === 'failed' || c.state === 'cancelled')) this.end('done');
    this.bump();
  }

  /** A trial of running cell `cell` ended: the cell fails with it, or is judged once its last
   * trial is done. */
  private settle(cell: CellRun, trial: Trial, ms: number, error: string | null): void {
    cell.study.finish(trial, ms, error);
    if (error !== null) {
      // One failed trial fails its cell (its medians would be over fewer trials than the
      // command line's); its other trials are not handed out.
      cell.state = 'failed';
      cell.message = `trial ${trial.index} of ${cell.study.plan.lanes[trial.lane].label}: ${error}`;
    } else if (cell.study.finished()) {
      try {
        cell.verdicts = this.judge(this.preset, cell.study.claimBands(), cell.study.end);
        cell.state = 'done';
      } catch (e) {
        cell.state = 'failed';
        cell.message = e instanceof Error ? e.message : String((e as { message?: unknown })?.message ?? e);
      }
    }
  }

  private end(status: ExplorerStatus): void {
    if (this.status !== 'running') return;
    this.status = status;
    this.endedAt = this.now();
  }

  private bump(): void {
    this.version += 1;
    this.changed();
  }

  /** Ends every worker: cells not finished are cancelled; finished cells stay. */
  cancel(): void {
    if (this.status !== 'running') return;
    this.pool.dispose();
    for (const c of this.cells) if (c.state === 'queued' || c.state === 'running') c.state = 'cancelled';
    this.end('cancelled');
    this.bump();
  }

  /** Trials under way. */
  get busy(): number {
    return this.pool.busy;
  }

  /** Milliseconds since the run started (until it ended). */
  elapsedMs(): number {
    return (this.endedAt ?? this.now()) - this.started;
  }

  /** Cells done, failed and cancelled; the share of the updates done; the time left at the
   * rate so far. */
  progress(): ExplorerProgress {
    let done = 0;
    let failed = 0;
    let cancelled = 0;
    let work = 0;
    let total = 0;
    const per = this.plan.lanes.length * this.plan.runs * Math.max(1, this.plan.iters);
    for (const c of this.cells) {
      total += per;
      if (c.state === 'done') done += 1;
      else if (c.state === 'failed') failed += 1;
      else if (c.state === 'cancelled') cancelled += 1;
      if (c.state !== 'queued' && c.state !== 'running') {
        work += per;
        continue;
      }
      for (const ts of c.study.trials)
        for (const t of ts) work += t.state === 'done' || t.state === 'failed' ? this.plan.iters : (t.points[t.points.length - 1]?.iter ?? 0);
    }
    const fraction = total > 0 ? work / total : 1;
    const ended = this.status !== 'running';
    const elapsed = this.elapsedMs();
    const etaMs = ended ? 0 : fraction > 0 && elapsed > 0 ? (elapsed * (1 - fraction)) / fraction : null;
    return { done, failed, cancelled, total: this.cells.length, fraction: ended ? 1 : fraction, etaMs };
  }

  /** The finished cells' verdicts as `rbm explore`'s `claim` lines (claimMap.ts draws them). */
  claims(): ExplorerClaim[] {
    const out: ExplorerClaim[] = [];
    for (const [i, c] of this.cells.entries()) {
      if (c.state !== 'done' || !c.verdicts) continue;
      const { settings, preset_point } = this.plan.cells[i];
      for (const v of c.verdicts) {
        out.push({
          cell: c.index,
          ...settings,
          preset_point,
          claim: v.claim,
          holds: v.holds,
          quantity: v.quantity ?? undefined,
          value: v.value,
          margin: v.margin,
        });
      }
    }
    return out;
  }

  /** Test hook: the worker of a trial under way dies (`crash`: a panic of its core; `exit`:
   * silently); returns that trial's cell (null: no trial under way). */
  killWorker(how: 'crash' | 'exit'): number | null {
    const t = this.pool.sendToBusy({ type: how });
    return t ? (this.owner.get(t)?.index ?? null) : null;
  }
}
