// The controls of one analysis of a lane's model (protocol/analyses.ts), shared by the chain and the
// gradient panels: its button, Cancel while it runs, a progress bar and a status line, and the
// state as `data-state` on the panel's root (for the tests).

import type { LaneHandle } from '../../app/lane';
import { type AnalysisKind, type AnalysisReport, analysisProgress } from '../../protocol/analyses';
import { el, setAttr, setText } from '../dom';

/** What the status line says in each state (running: before the progress). */
export interface AnalysisWords {
  /** The kind's steps, e.g. "sweeps". */
  unit: string;
  running(r: AnalysisReport): string;
  done(r: AnalysisReport): string;
  failed: string;
}

export class AnalysisControls {
  readonly run: HTMLButtonElement;
  readonly cancel: HTMLButtonElement;
  readonly bar: HTMLProgressElement;
  readonly status: HTMLElement;
  private lane: LaneHandle | null = null;

  constructor(
    private readonly kind: AnalysisKind,
    label: string,
    ask: (lane: LaneHandle) => void,
  ) {
    this.run = el('button', { type: 'button', className: `${kind}-run`, textContent: label });
    this.cancel = el('button', { type: 'button', className: `${kind}-cancel`, textContent: 'Cancel', hidden: true });
    this.bar = el('progress', { className: `${kind}-bar`, max: 1, value: 0, hidden: true });
    this.status = el('span', { className: `${kind}-status`, role: 'status' });
    this.run.addEventListener('click', () => {
      if (this.lane) ask(this.lane);
    });
    this.cancel.addEventListener('click', () => this.lane?.cancelAnalysis(kind));
  }

  /** The button's state (every draw: cheap). */
  enable(lane: LaneHandle): void {
    this.lane = lane;
    const running = lane.analyses[this.kind]?.state === 'running';
    this.run.disabled = running || lane.gen === 0 || lane.status === 'loading' || lane.status === 'fatal';
  }

  /** Shows report `r` (when it changed). */
  show(root: HTMLElement, r: AnalysisReport | undefined, words: AnalysisWords): void {
    const running = r?.state === 'running';
    setAttr(root, 'data-state', r ? r.state : 'none');
    this.cancel.hidden = !running;
    this.bar.hidden = !running;
    this.bar.value = r && r.total > 0 ? r.done / r.total : 0;
    if (!r) {
      setText(this.status, '');
      return;
    }
    const text = {
      running: () => `${words.running(r)}: ${analysisProgress(r, words.unit)}`,
      done: () => words.done(r),
      cancelled: () => 'cancelled',
      failed: () => `${words.failed}: ${r.error ?? 'unknown error'}`,
    };
    setText(this.status, text[r.state]());
  }
}
