// The weight filters: column j of W for each hidden unit, as an image of the data's shape, in a
// grid drawn from its pixels (tiles.ts) with one putImageData. Wide models show their first
// FIRST_FILTERS filters, with a button for all of them.

import type { LaneHandle } from '../../app/lane';
import { dataFamily } from '../../app/state';
import { el, setText } from '../dom';
import { drawPixels } from '../draw';
import { filterReadout, hoverReadout, tileAt } from '../readouts';
import { absMaxColumns, filterPixels, grid, patternShape, tileLayout } from '../tiles';
import { Foldable, type LanePanel, type PanelContext, type PanelKind, pictureTools } from './panel';

/** Filters shown before "show all". */
export const FIRST_FILTERS = 100;

class FiltersPanel implements LanePanel {
  private canvas!: HTMLCanvasElement;
  private caption!: HTMLElement;
  private toggle!: HTMLButtonElement;
  private fold!: Foldable;
  private showAll = false;
  /** What the hover readout reads (the drawing on screen). */
  private hit: ((x: number, y: number) => string | null) | null = null;

  mount(container: HTMLElement, ctx: PanelContext): void {
    this.canvas = el('canvas', { className: 'filters', role: 'img', width: 0, height: 0 });
    this.canvas.setAttribute('aria-label', 'Weight filters (drawn once the lane has a model)');
    this.caption = el('figcaption', { className: 'filters-caption' });
    this.toggle = el('button', { type: 'button', className: 'show-all', hidden: true });
    this.toggle.addEventListener('click', () => {
      this.showAll = !this.showAll;
      this.fold.drawn.forget();
      ctx.refresh();
    });
    const readout = hoverReadout(this.canvas, () => this.hit);
    this.fold = new Foldable(
      'Weight filters',
      'filters-view',
      ctx,
      el('figure', {}, this.canvas, readout, this.caption, pictureTools(this.canvas, this.caption, 'Weight filters', ctx)),
      this.toggle,
    );
    container.append(this.fold.el);
  }

  update(lane: LaneHandle, ctx: PanelContext): void {
    const view = lane.view;
    const ds = ctx.dataset();
    if (!view || !ds || !this.fold.showing(ctx)) return;
    // Images use the card's width; the small sets keep their compact grid.
    const images = dataFamily(ds) === 'images';
    const width = images ? ctx.width() : Math.min(ctx.width(), 320);
    if (!this.fold.drawn.changed(view, ds, width, this.showAll)) return;
    const { m, n } = view;
    const count = this.showAll ? n : Math.min(n, FIRST_FILTERS);
    const shape = patternShape(m, ds.shape);
    const layout = tileLayout(count, shape, width, { cols: grid(count).cols, gap: images ? 2 : 3, maxCell: images ? 3 : 64 });
    const scale = absMaxColumns(view.weights, m, n, count);
    drawPixels(this.canvas, filterPixels(view.weights, m, n, layout, scale));
    const weights = view.weights;
    this.hit = (x, y) => {
      const k = tileAt(layout, x, y);
      return k === null ? null : filterReadout(weights, m, n, k);
    };
    this.toggle.hidden = n <= FIRST_FILTERS;
    setText(this.toggle, this.showAll ? `Show the first ${FIRST_FILTERS}` : `Show all ${n}`);
    const which = count === n ? `each of the ${n} hidden units` : `the first ${count} of the ${n} hidden units`;
    const text = `Weight filters at update ${view.iter.toLocaleString('en')}: column j of W for ${which}, as a ${shape.join('×')} image; blue negative, red positive, white 0 (scale ±${scale.toFixed(2)}).`;
    this.canvas.setAttribute('aria-label', text);
    setText(this.caption, text);
  }
}

export const filtersPanel: PanelKind = {
  name: 'filters',
  title: 'weight filters',
  help: "Each tile is one hidden unit's weights to the visible units, drawn as an image: the pattern it responds to. Blue negative, red positive.",
  term: 'filter',
  create: () => new FiltersPanel(),
};
