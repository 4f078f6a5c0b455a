// UCD's stopping times over training for a single live run (Qiu, Zhang & Wang 2020, §3.3): the
// mean τ of each record (over the updates since the previous one) and the largest τ, against
// updates — the history a study draws as bands, here for the one lane. A rise of τ is the
// model's mixing slowing down, where CD starts to fail.

import type { StatCurve } from '../../app/curve';
import type { LaneHandle } from '../../app/lane';
import { el, setAttr, setText } from '../dom';
import { MiniChart } from '../miniChart';
import { pngName } from '../png';
import { Foldable, type LanePanel, type PanelContext, type PanelKind } from './panel';

/** The columns of the τ history: updates, mean τ and largest τ per record (null where a record
 * lacks one); null when fewer than two records carry τ. */
export function tauHistory(c: StatCurve): { x: number[]; mean: (number | null)[]; max: (number | null)[] } | null {
  const x: number[] = [];
  const mean: (number | null)[] = [];
  const max: (number | null)[] = [];
  c.stats.forEach((s, i) => {
    if (!('mean_tau' in s)) return;
    x.push(c.iter[i]);
    mean.push(Number.isFinite(s.mean_tau) ? s.mean_tau : null);
    max.push('max_tau' in s && Number.isFinite(s.max_tau) ? s.max_tau : null);
  });
  return x.length >= 2 ? { x, mean, max } : null;
}

/** The caption: where mean τ peaked and where it stands. */
export function tauHistoryCaption(h: NonNullable<ReturnType<typeof tauHistory>>): string {
  let peak = -1;
  h.mean.forEach((v, i) => {
    if (v !== null && (peak < 0 || v > (h.mean[peak] ?? -Infinity))) peak = i;
  });
  const last = h.mean.length - 1;
  const at = (i: number) => `${(h.mean[i] ?? Number.NaN).toFixed(2)} at update ${h.x[i].toLocaleString('en')}`;
  return `Mean τ of each record (over the updates since the previous one): highest ${at(peak)}, now ${at(last)}; dashed: the largest τ. In a study the same history is drawn as the trials' median and band.`;
}

class TauHistoryPanel implements LanePanel {
  private fold!: Foldable;
  private chart!: MiniChart;
  private caption!: HTMLElement;
  private root!: HTMLElement;
  private shown = '';

  mount(container: HTMLElement, ctx: PanelContext): void {
    this.chart = new MiniChart(
      {
        xLabel: 'parameter updates',
        yLabel: 'mean τ, steps',
        y2Label: 'largest τ, steps',
        series: [
          { label: 'mean τ', colour: ctx.colour },
          { label: 'largest τ', colour: ctx.colour, dash: [4, 3], right: true },
        ],
        height: 160,
      },
      () => pngName(ctx.fileStem(), 'tau-history'),
      'stopping times τ over training',
    );
    this.caption = el('p', { className: 'tau-caption tau-history-caption' });
    this.root = el('div', { className: 'tau-history' }, this.chart.el, this.caption);
    this.fold = new Foldable('stopping times τ over training', 'tau-history-view', ctx, this.root);
    this.fold.el.hidden = true;
    container.append(this.fold.el);
  }

  update(lane: LaneHandle, ctx: PanelContext): void {
    const h = tauHistory(lane.statCurve);
    this.fold.el.hidden = h === null;
    if (!h || !this.fold.showing(ctx)) return;
    const width = ctx.width();
    const key = `${h.x.length}:${h.x.at(-1)}:${width}`;
    if (key === this.shown) return;
    this.shown = key;
    this.chart.set(h.x, [h.mean, h.max], width);
    setText(this.caption, tauHistoryCaption(h));
    setAttr(this.root, 'data-points', String(h.x.length));
  }
}

export const tauHistoryPanel: PanelKind = {
  name: 'tau-history',
  title: 'stopping times τ over training',
  help: "UCD's mean stopping time τ of each record and the largest τ, over training: how long its coupled chains took to meet as the model learned.",
  term: 'tau',
  create: () => new TauHistoryPanel(),
};
