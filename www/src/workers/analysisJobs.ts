// The worker's side of the analysis channel (protocol/analyses.ts): at most one analysis of each
// kind per lane, each started by its kind's handler (analyses.ts) on the model as it was when
// asked for, advanced a chunk of steps (sized to about SLICE_MS) per training slice, with
// progress reports at a bounded rate. The runner (runner.ts) owns the lane and calls `slice`
// between its own slices. Nothing here names a kind.
import type { AisProgress } from '../generated/core';
import { type AnalysisKind, type AnalysisReport, type AnalysisRequest, startingAnalysis } from '../protocol/analyses';
import { type FromWorker, isErrorInfo, nextChunk } from '../protocol/messages';
import { type AnalysisLane, type CoreStepped, HANDLERS, type Handler } from './analyses';

/** Least time between two progress reports of one analysis. */
export const ANALYSIS_REPORT_MS = 100;

interface Job {
  id: number;
  gen: number;
  run: CoreStepped<unknown>;
  chunk: number;
  report: AnalysisReport;
  lastReport: number;
}

export class AnalysisJobs {
  private jobs = new Map<AnalysisKind, Job>();

  constructor(
    private readonly post: (msg: FromWorker) => void,
    private readonly now: () => number,
  ) {}

  /** Whether an analysis is under way (the worker keeps slicing while one is). */
  get busy(): boolean {
    return this.jobs.size > 0;
  }

  /** Starts `request` on lane `gen`'s current model, trained on `dataset` (`lane` null: the
   * lane is gone or loading), replacing an analysis of the same kind under way. */
  start(lane: AnalysisLane | null, dataset: string, gen: number, id: number, request: AnalysisRequest): void {
    this.end(request.kind, 'cancelled');
    const report = startingAnalysis(request.kind);
    if (!lane) {
      this.post({ type: 'analysis', gen, id, report: { ...report, state: 'failed', error: 'the lane changed: ask again' } });
      return;
    }
    report.iter = lane.iter;
    const t0 = this.now();
    let run: CoreStepped<unknown>;
    try {
      // The handler of the request's kind (the table pairs each kind with its own).
      run = (HANDLERS[request.kind] as Handler<AnalysisKind>)(lane, dataset, request);
    } catch (e) {
      if (!isErrorInfo(e)) throw e; // a panic: fatal
      this.post({ type: 'analysis', gen, id, report: { ...report, state: 'failed', error: e.message } });
      return;
    }
    report.ms = this.now() - t0;
    this.jobs.set(request.kind, { id, gen, run, chunk: 1, report, lastReport: -Infinity });
    this.report(request.kind, true);
  }

  /** Drops analysis `id` if it is under way. */
  cancel(id: number): void {
    for (const [kind, job] of this.jobs) if (job.id === id) this.end(kind, 'cancelled');
  }

  /** Drops every analysis (a new lane). */
  cancelAll(): void {
    for (const kind of [...this.jobs.keys()]) this.end(kind, 'cancelled');
  }

  /** Forgets every analysis without a word (the module broke). */
  drop(): void {
    this.jobs.clear();
  }

  /** One chunk of each analysis under way. */
  slice(): void {
    for (const [kind, job] of [...this.jobs]) {
      const t0 = this.now();
      let p: AisProgress;
      try {
        p = job.run.step(job.chunk);
      } catch (e) {
        if (!isErrorInfo(e)) throw e;
        job.report.error = e.message;
        this.end(kind, 'failed');
        continue;
      }
      const elapsed = this.now() - t0;
      job.chunk = nextChunk(job.chunk, elapsed);
      job.report.ms += Math.max(0, elapsed);
      job.report.done = p.doneSteps;
      job.report.total = p.totalSteps;
      if (p.done) this.end(kind, 'done');
      else this.report(kind, false);
    }
  }

  private report(kind: AnalysisKind, now: boolean): void {
    const job = this.jobs.get(kind);
    if (!job) return;
    const t = this.now();
    if (!now && t - job.lastReport < ANALYSIS_REPORT_MS) return;
    job.lastReport = t;
    this.post({ type: 'analysis', gen: job.gen, id: job.id, report: { ...job.report } });
  }

  private end(kind: AnalysisKind, state: 'done' | 'cancelled' | 'failed'): void {
    const job = this.jobs.get(kind);
    if (!job) return;
    this.jobs.delete(kind);
    const r = job.report;
    r.state = state;
    if (state === 'done') r.result = job.run.result() as AnalysisReport['result'];
    job.run.free();
    this.post({ type: 'analysis', gen: job.gen, id: job.id, report: { ...r } });
  }
}
