// The first chains of the negative phase (their current visible states), when the algorithm
// keeps chains.
import { el } from '../dom';
import { drawChains } from '../draw';
import type { LaneHandle } from '../lane';
import { DrawnFrom, type LanePanel, type PanelContext, type PanelKind } from './panel';

class ChainsPanel implements LanePanel {
  private figure!: HTMLElement;
  private canvas!: HTMLCanvasElement;
  private drawn = new DrawnFrom();

  mount(container: HTMLElement): void {
    this.canvas = el('canvas', { className: 'chains', role: 'img' });
    this.canvas.setAttribute('aria-label', 'The current visible states of the first chains of the negative phase.');
    this.figure = el(
      'figure',
      { className: 'chains-figure', hidden: true },
      this.canvas,
      el('figcaption', {}, 'The first chains of the negative phase (their current visible states).'),
    );
    container.append(this.figure);
  }

  update(lane: LaneHandle, ctx: PanelContext): void {
    const view = lane.view;
    const ds = ctx.dataset();
    const width = ctx.width();
    if (!view || !ds || !this.drawn.changed(view, ds, width)) return;
    this.figure.hidden = !view.chains;
    if (view.chains) drawChains(this.canvas, view.chains, view.m, ds.shape, width);
  }
}

export const chainsPanel: PanelKind = { name: 'chains', create: () => new ChainsPanel() };
