// `window.__rbm`: what the end-to-end tests read (numbers, never pixels) and the test-only
// crash of a lane's wasm core.

import type { Catalog, ErrorInfo, Verdict } from '../generated/core';
import type { LaneStatus } from '../protocol/messages';
import type { OptionValue } from '../protocol/schema';
import type { App } from './app';
import type { Axis } from './chartData';
import { epochsDone, rowsPerSecond } from './progress';
import type { PageState } from './state';
import type { Band } from './study';

export interface LaneSnapshot {
  id: number;
  algo: string;
  label: string | null;
  status: LaneStatus;
  message: string | null;
  gen: number;
  /** Whether a configuration awaits the worker's answer. */
  pending: boolean;
  seed: string;
  iter: number;
  /** Updates per second. */
  rate: number;
  /** Epochs done (updates × batch / rows). */
  epoch: number;
  /** Training rows per second. */
  rowsPerSecond: number;
  /** Milliseconds spent training. */
  elapsed: number;
  /** How long the lane's worker took to answer the latest Pause (ms, by the worker's clock). */
  pauseReply: number | null;
  /** The update the lane's reply to the latest Pause named (null: none). */
  pausedAt: number | null;
  /** The lane's end point in updates (null: none). */
  until: number | null;
  /** Data on its way to the worker (null: none). */
  dataLoad: { label: string; received: number; total: number | null } | null;
  options: Record<string, OptionValue>;
  inputErrors: Record<string, string>;
  rejection: ErrorInfo | null;
  iters: number[];
  sweeps: number[];
  atll: number[];
  stats: Record<string, number>;
  /** The exact evaluation the lane waits for (the evaluation pool), or the last that failed. */
  exact: { iter: number; done: number; total: number; state: 'running' | 'failed' } | null;
  /** The update of the lane's latest slow-motion trace (null: none). */
  traced: number | null;
  /** "AIS every N updates" and its brackets so far (AIS estimate, RAISE–AIS range). */
  aisEvery: number | null;
  brackets: { iter: number; sweeps: number; ais: number; raise: number; lo: number; hi: number }[];
  /** The GPU adapter the lane runs on (null: the CPU). */
  gpu: string | null;
  /** Why the lane runs without what it asked for (its exact curve, the GPU), if so. */
  notice: string | null;
  /** The model file the lane continues or last refused (null: none). */
  modelFile: { name: string; state: 'loading' | 'loaded' | 'refused'; message: string | null } | null;
}

/** A study as the tests read it: every trial's records and every band. */
export interface StudySnapshot {
  status: string;
  runs: number;
  until: number;
  every: number;
  seed: number;
  workers: number;
  lanes: {
    id: number;
    label: string;
    trials: {
      index: number;
      state: string;
      diverged: boolean;
      message: string | null;
      /** The GPU adapter it ran on (null: the CPU). */
      gpu: string | null;
      iters: number[];
      sweeps: number[];
      atll: number[];
      stats: Record<string, number>[];
    }[];
    bands: (Pick<Band, 'iter' | 'median' | 'q025' | 'q10' | 'q90' | 'q975' | 'mean' | 'sweeps' | 'trials' | 'stats'> | null)[];
  }[];
  progress: { done: number; running: number; failed: number; total: number; fraction: number; etaMs: number | null };
  elapsedMs: number;
  verdicts: Verdict[] | null;
  /** The study's AIS worker (a GPU study measured by AIS; null: none, or not asked yet): the
   * models of each batch run so far, and why it failed. */
  ais: { batches: number[]; failed: string | null; lost: string | null } | null;
}

export interface TestHook {
  /** The study under way or finished (null: none). */
  study(): StudySnapshot | null;
  /** True once the catalog is loaded and the first lanes are made. */
  ready: boolean;
  lanes(): LaneSnapshot[];
  /** Whether some lane is running (as its worker says). */
  running(): boolean;
  /** The data set, every shared option and the end point. */
  settings(): Record<string, OptionValue>;
  axis(): Axis;
  catalog(): Catalog;
  state(): PageState;
  notices(): string[];
  /** Makes lane `id`'s wasm core panic (as a bug would). */
  crash(id: number): void;
  /** Destroys GPU lane `id`'s device (as a driver reset would). */
  loseGpu(id: number): void;
  /** The GPU of the study's trial under way with the fewest records fails (as a driver reset
   * would): its lane id and index (null: no trial is under way). */
  loseTrialGpu(): { lane: number; index: number } | null;
  /** Destroys the sampler view's GPU while its samplers run there (set once the view opens). */
  loseSamplerGpu?: () => void;
  /** A study's AIS at each checkpoint with fewer particles and β than its preset's (a short
   * test on SwiftShader); null: the preset's. */
  setStudyAis(ais: { particles: number; betas: number } | null): void;
  /** Whether a GPU study's checkpoints go to the study's AIS worker (true, the default) or each
   * trial anneals its own (false), for the next study made. */
  setStudyAisBatch(batch: boolean): void;
  /** The study's AIS worker's GPU fails (as a lost device); false: there is none. */
  loseStudyAisGpu(): boolean;
  /** A GPU study of small data runs its lanes' trials as one GPU job (default) or each on its
   * own GPU lane. */
  setStudyJobs(on: boolean): void;
  /** The study's GPU job's device fails (a lost device); false when there is no job. */
  loseStudyJobGpu(): boolean;
  /** Ends lane `id`'s worker silently (no error event), as the browser killing it would. */
  exitWorker(id: number): void;
  /** The worker of the study's trial under way with the fewest records dies: its core panics (`crash`) or it ends
   * silently (`exit`). Returns that trial's lane id and index (null: no trial is under way). */
  killTrialWorker(how: 'crash' | 'exit'): { lane: number; index: number } | null;
  /** The worker of a trial under way of the page's explorer grid dies (as `killTrialWorker`).
   * Returns that trial's cell (null: no trial is under way). */
  killExplorerWorker(how: 'crash' | 'exit'): number | null;
  /** The data sets the picker offers (names). */
  dataSets(): string[];
  /** Whether the page has drawn every change so far (it draws in the next animation frame). */
  drawn(): boolean;
  /** The lanes' turns (turns.ts): how many compute at once, whether they take turns, and how
   * many hold or wait for a turn now. */
  turns(): { atOnce: number; taking: boolean; holding: number; waiting: number };
}

export function installTestHook(app: App, drawn: () => boolean): TestHook {
  const hook: TestHook = {
    drawn,
    ready: false,
    turns: () => ({ atOnce: app.turns.capacity, taking: app.turns.taking, holding: app.turns.holders, waiting: app.turns.waiting }),
    study: () => {
      const run = app.study;
      if (!run) return null;
      const s = run.study;
      return {
        status: run.status,
        runs: s.plan.runs,
        until: s.plan.until,
        every: s.plan.every,
        seed: s.plan.seed,
        workers: run.workers,
        lanes: s.plan.lanes.map((l, i) => ({
          id: l.id,
          label: l.label,
          trials: s.trials[i].map((t) => ({
            index: t.index,
            state: t.state,
            diverged: t.diverged,
            message: t.message,
            gpu: t.gpu ?? null,
            iters: t.points.map((p) => p.iter),
            sweeps: t.points.map((p) => p.sweeps),
            atll: t.points.map((p) => p.atll),
            stats: t.points.map((p) => ({ ...p.stats })),
          })),
          bands: s.bands(i).map(
            (b) =>
              b && {
                iter: b.iter,
                median: b.median,
                q025: b.q025,
                q10: b.q10,
                q90: b.q90,
                q975: b.q975,
                mean: b.mean,
                sweeps: b.sweeps,
                trials: b.trials,
                stats: { ...b.stats },
              },
          ),
        })),
        progress: s.progress(run.workers),
        elapsedMs: run.elapsedMs(),
        verdicts: app.verdicts(),
        ais: run.ais ? { batches: run.ais.status?.batches ?? [], failed: run.ais.status?.failed ?? null, lost: run.ais.lost } : null,
      };
    },
    lanes: () =>
      app.lanes.map((l) => {
        const rows = app.dataset()?.rows ?? 1;
        const batch = app.batchOf(l);
        return {
          id: l.id,
          algo: l.algo,
          label: l.label,
          status: l.status,
          message: l.message,
          gen: l.gen,
          pending: l.sent !== l.answered,
          seed: l.seed,
          iter: l.iter,
          rate: l.rate,
          epoch: epochsDone(l.iter, batch, rows),
          rowsPerSecond: rowsPerSecond(l.rate, batch),
          elapsed: l.elapsed,
          pauseReply: l.pauseReply,
          pausedAt: l.pausedAt,
          until: l.limitAt,
          dataLoad: l.dataLoad && { ...l.dataLoad },
          options: { ...l.options },
          inputErrors: { ...l.inputErrors },
          rejection: l.rejection,
          iters: [...l.curve.iter],
          sweeps: [...l.curve.sweeps],
          atll: [...l.curve.atll],
          stats: { ...l.stats },
          exact: l.exact && { iter: l.exact.iter, done: l.exact.done, total: l.exact.total, state: l.exact.state },
          modelFile: l.modelFile && { ...l.modelFile },
          traced: l.trace?.iter ?? null,
          aisEvery: l.aisEvery,
          brackets: l.brackets.map((b) => ({
            iter: b.iter,
            sweeps: b.sweeps,
            ais: b.ais.atll,
            raise: b.raise.atll,
            lo: Math.min(b.raise.atll_lo, b.ais.atll_lo),
            hi: Math.max(b.ais.atll_hi, b.raise.atll_hi),
          })),
          gpu: l.gpu,
          notice: l.notice,
        };
      }),
    running: () => app.running(),
    settings: () => ({ data: app.data, ...app.shared, stop: app.stop, stop_unit: app.stopUnit }),
    axis: () => app.axis,
    catalog: () => app.catalog,
    state: () => app.state(),
    notices: () => [...app.notices],
    crash: (id) => app.lanes.find((l) => l.id === id)?.crash(),
    loseGpu: (id) => app.lanes.find((l) => l.id === id)?.loseGpu(),
    loseTrialGpu: () => {
      const run = app.study;
      const t = run?.loseGpu();
      return run && t ? { lane: run.study.plan.lanes[t.lane].id, index: t.index } : null;
    },
    setStudyAis: (ais) => {
      app.studyAisForTest = ais;
    },
    setStudyAisBatch: (batch) => {
      app.studyAisBatch = batch;
    },
    setStudyJobs: (on) => {
      app.studyJobs = on;
    },
    loseStudyJobGpu: () => app.study?.loseJobGpu() ?? false,
    loseStudyAisGpu: () => {
      const ais = app.study?.ais;
      ais?.loseGpu();
      return ais !== null && ais !== undefined;
    },
    exitWorker: (id) => app.lanes.find((l) => l.id === id)?.exitWorker(),
    killTrialWorker: (how) => {
      const run = app.study;
      const t = run?.killWorker(how);
      return run && t ? { lane: run.study.plan.lanes[t.lane].id, index: t.index } : null;
    },
    killExplorerWorker: (how) => app.explorer?.killWorker(how) ?? null,
    dataSets: () => app.dataSets.map((d) => d.name),
  };
  (window as unknown as { __rbm: TestHook }).__rbm = hook;
  return hook;
}
