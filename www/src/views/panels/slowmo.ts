// Slow motion (GAN Lab's idea for the RBM's update, docs/algorithms.md §4): "Step" pauses the
// lane and makes one ordinary update in its worker (WasmLane.stepTraced: the same update, bit
// for bit), and the panel walks through its phases with numbered captions — the mini-batch,
// E[h|v] (positive phase), the chains through each Gibbs sweep (negative phase), the two
// statistics and ΔW as tiles. "Continue at full speed" starts the lane again.

import type { LaneHandle } from '../../app/lane';
import type { Trace } from '../../generated/core';
import { el, setText } from '../dom';
import { drawPixels } from '../draw';
import { absMax, filterPixels, greyPixels, patternShape, tileLayout } from '../tiles';
import type { LanePanel, PanelContext, PanelKind } from './panel';

/** Hidden units whose tiles the statistics and ΔW show. */
export const SLOW_MOTION_UNITS = 16;

/** The numbered captions of a trace's phases (pure: the unit tests read them). */
export function phaseCaptions(t: Trace, k: number | null): string[] {
  const units = Math.min(t.n, SLOW_MOTION_UNITS);
  const which = units === t.n ? `each of the ${t.n} hidden units` : `the first ${units} of the ${t.n} hidden units`;
  const sweeps = Math.max(0, t.sweeps.length - 1);
  const chains = t.sweeps.length
    ? `③ Negative phase: the first ${t.chains} chains at the start of the negative phase (top row) and after ${sweeps === 1 ? 'its Gibbs sweep' : `each of the first ${sweeps}${k !== null && k > sweeps ? ` of ${k}` : ''} Gibbs sweeps`} (one row per sweep): samples from the model.`
    : "③ Negative phase: this algorithm's sampler is not traced sweep by sweep; its statistics are in ④.";
  return [
    `① The mini-batch: the first ${t.rows} training rows the update learns from.`,
    `② Positive phase: E[h|v] for each of these rows, one strip of ${t.n} hidden units per row (dark: the unit is likely on).`,
    chains,
    `④ The statistics ⟨v_i h_j⟩ for ${which}: under the data (left tiles, from ②) and under the model (right tiles, from the chains ③).`,
    `⑤ The change ΔW = η·(data − model) with η = ${t.lr.toPrecision(3)}, as tiles for ${which}: red up, blue down (scale ±${absMax(t.delta_w).toPrecision(2)}). Update ${t.iter.toLocaleString('en')} is done.`,
  ];
}

/** Why a lane on the GPU has no slow motion. */
export const GPU_NOTE = 'Slow motion traces an update on the CPU: this lane runs on the GPU (choose Compute: CPU to step it).';

class SlowMotionPanel implements LanePanel {
  private step!: HTMLButtonElement;
  private resume!: HTMLButtonElement;
  private phases!: HTMLElement;
  private gpuNote!: HTMLElement;
  private captions: HTMLElement[] = [];
  private canvases: HTMLCanvasElement[] = [];
  private drawn: { trace: Trace | null; width: number } = { trace: null, width: 0 };

  mount(container: HTMLElement, ctx: PanelContext): void {
    this.step = el('button', { type: 'button', className: 'step', textContent: 'Step ▸ one update in slow motion' });
    this.step.title = 'pause this lane and make one update, shown phase by phase';
    this.step.addEventListener('click', () => ctx.traceStep());
    this.resume = el('button', { type: 'button', className: 'resume', textContent: 'Continue at full speed', hidden: true });
    this.resume.addEventListener('click', () => ctx.resume());
    this.gpuNote = el('p', { className: 'note gpu-note', hidden: true, textContent: GPU_NOTE });
    this.phases = el('div', { className: 'phases', hidden: true });
    for (let i = 0; i < 5; i++) {
      const caption = el('figcaption', {});
      const canvas = el('canvas', { className: `phase phase-${i + 1}`, role: 'img', width: 0, height: 0 });
      this.captions.push(caption);
      this.canvases.push(canvas);
      this.phases.append(el('figure', {}, caption, canvas));
    }
    container.append(el('div', { className: 'inline slowmo-buttons' }, this.step, this.resume), this.gpuNote, this.phases);
  }

  update(lane: LaneHandle, ctx: PanelContext): void {
    // A GPU lane's update is not traced (its phases never leave the GPU): say so, offer nothing.
    const gpu = lane.gpu !== null;
    this.gpuNote.hidden = !gpu;
    this.step.disabled = gpu || lane.gen === 0 || ['loading', 'fatal', 'failed', 'done'].includes(lane.status);
    const t = lane.trace;
    this.phases.hidden = t === null;
    this.resume.hidden = t === null || lane.status === 'running';
    if (!t || !ctx.visible()) return;
    const width = Math.min(ctx.width(), 480);
    if (this.drawn.trace === t && this.drawn.width === width) return;
    this.drawn = { trace: t, width };
    const shape = patternShape(t.m, ctx.dataset()?.shape ?? null);
    const k = typeof lane.options.k === 'number' ? lane.options.k : null;
    const captions = phaseCaptions(t, k);
    captions.forEach((c, i) => {
      setText(this.captions[i], c);
      this.canvases[i].setAttribute('aria-label', c);
    });
    const [batch, hidden, chains, stats, delta] = this.canvases;
    drawPixels(batch, greyPixels(t.batch, t.m, tileLayout(t.rows, shape, width, { cols: t.rows, maxCell: 8 })));
    drawPixels(hidden, greyPixels(t.hidden_probs, t.n, tileLayout(t.rows, [1, t.n], width, { cols: 1, maxCell: 10 })));
    const states = t.sweeps.length;
    chains.hidden = states === 0;
    if (states) drawPixels(chains, greyPixels(t.sweeps.flat(), t.m, tileLayout(states * t.chains, shape, width, { cols: t.chains, maxCell: 8 })));
    const units = Math.min(t.n, SLOW_MOTION_UNITS);
    // Data and model statistics side by side, on one scale: unit j's data tile, then its model tile.
    const both = new Array<number>(t.m * 2 * units);
    for (let i = 0; i < t.m; i++) {
      for (let j = 0; j < units; j++) {
        both[i * 2 * units + 2 * j] = t.positive[i * t.n + j];
        both[i * 2 * units + 2 * j + 1] = t.negative[i * t.n + j];
      }
    }
    drawPixels(stats, filterPixels(both, t.m, 2 * units, tileLayout(2 * units, shape, width, { cols: 8, maxCell: 8 }), absMax(both)));
    const dw = new Array<number>(t.m * units);
    for (let i = 0; i < t.m; i++) for (let j = 0; j < units; j++) dw[i * units + j] = t.delta_w[i * t.n + j];
    drawPixels(delta, filterPixels(dw, t.m, units, tileLayout(units, shape, width, { cols: 8, maxCell: 8 }), absMax(dw)));
  }
}

export const slowMotionPanel: PanelKind = {
  name: 'slowmo',
  title: 'slow motion',
  help: 'Step makes one update of this lane and shows it phase by phase: the data, E[h|v], the chains through each Gibbs sweep, the statistics and the change of the weights. Continue runs the lane at full speed again.',
  term: 'gibbs-sweep',
  create: () => new SlowMotionPanel(),
};
