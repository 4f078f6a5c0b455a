// Reconstructions: the first training rows (grey levels, or 0/1) above, and below each its
// reconstruction E[v | E[h|v]] under the model — how much of a digit the hidden layer keeps.
// Shown for image data (MNIST, the user's files); the small sets keep their distribution panel.

import type { LaneHandle } from '../../app/lane';
import { dataFamily } from '../../app/state';
import { setText } from '../dom';
import { drawPixels } from '../draw';
import { greyPixels, patternShape, tileLayout } from '../tiles';
import { CanvasFigure, type LanePanel, type PanelContext, type PanelKind } from './panel';

class ReconstructionsPanel implements LanePanel {
  private fold!: CanvasFigure;

  mount(container: HTMLElement, ctx: PanelContext): void {
    this.fold = new CanvasFigure('Reconstructions', 'reconstructions-figure', 'reconstructions', ctx, container);
  }

  update(lane: LaneHandle, ctx: PanelContext): void {
    const view = lane.view;
    const ds = ctx.dataset();
    if (!view || !ds) return;
    const count = Math.floor(view.originals.length / Math.max(1, view.m));
    this.fold.el.hidden = dataFamily(ds) !== 'images' || count === 0 || view.reconstructions.length !== view.originals.length;
    if (!this.fold.showing(ctx)) return;
    const width = ctx.width();
    if (!this.fold.drawn.changed(view, ds, width)) return;
    const shape = patternShape(view.m, ds.shape);
    // Originals in the first row, their reconstructions in the second.
    const layout = tileLayout(2 * count, shape, width, { cols: count, gap: 2, maxCell: 3 });
    drawPixels(this.fold.canvas, greyPixels(view.originals.concat(view.reconstructions), view.m, layout));
    const text = `Top: the first ${count} training images; below each, its reconstruction E[v | E[h|v]] under the model at update ${view.iter.toLocaleString('en')}.`;
    this.fold.canvas.setAttribute('aria-label', text);
    setText(this.fold.caption, text);
  }
}

export const reconstructionsPanel: PanelKind = {
  name: 'reconstructions',
  title: 'reconstructions',
  help: 'Training rows passed up to the hidden units and back down once: how well the model represents the data.',
  create: () => new ReconstructionsPanel(),
};
