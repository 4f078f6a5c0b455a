// The weight filters: column j of W for each hidden unit, as an image of the data's shape.
import { el, setText } from '../dom';
import { drawFilters } from '../draw';
import type { LaneHandle } from '../lane';
import { DrawnFrom, type LanePanel, type PanelContext, type PanelKind } from './panel';

class FiltersPanel implements LanePanel {
  private canvas!: HTMLCanvasElement;
  private caption!: HTMLElement;
  private drawn = new DrawnFrom();

  mount(container: HTMLElement): void {
    this.canvas = el('canvas', { className: 'filters', role: 'img' });
    this.caption = el('figcaption', { className: 'filters-caption' });
    container.append(el('figure', {}, this.canvas, this.caption));
  }

  update(lane: LaneHandle, ctx: PanelContext): void {
    const view = lane.view;
    const ds = ctx.dataset();
    const width = Math.min(ctx.width(), 320);
    if (!view || !ds || !this.drawn.changed(view, ds, width)) return;
    const scale = drawFilters(this.canvas, view.weights, view.m, view.n, ds.shape, width);
    const shape = ds.shape && ds.shape[0] * ds.shape[1] === view.m ? ds.shape.join('×') : `1×${view.m}`;
    const text = `Weight filters at update ${view.iter}: column j of W for each of the ${view.n} hidden units, as a ${shape} image; blue negative, red positive, white 0 (scale ±${scale.toFixed(2)}).`;
    this.canvas.setAttribute('aria-label', text);
    setText(this.caption, text);
  }
}

export const filtersPanel: PanelKind = { name: 'filters', create: () => new FiltersPanel() };
