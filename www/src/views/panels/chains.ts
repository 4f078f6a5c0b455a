// Samples of the model: the current visible states of the first chains of the negative phase
// (when the algorithm keeps chains), as a strip of images drawn with one putImageData.

import type { LaneHandle } from '../../app/lane';
import { dataFamily } from '../../app/state';
import { setText } from '../dom';
import { drawPixels } from '../draw';
import { hoverReadout, sampleReadout, tileAt } from '../readouts';
import { greyPixels, patternShape, tileLayout } from '../tiles';
import { CanvasFigure, type LanePanel, type PanelContext, type PanelKind } from './panel';

class ChainsPanel implements LanePanel {
  private fold!: CanvasFigure;
  private hit: ((x: number, y: number) => string | null) | null = null;

  mount(container: HTMLElement, ctx: PanelContext): void {
    this.fold = new CanvasFigure('Samples (negative chains)', 'chains-figure', 'chains', ctx, container);
    this.fold.canvas.after(hoverReadout(this.fold.canvas, () => this.hit));
  }

  update(lane: LaneHandle, ctx: PanelContext): void {
    const view = lane.view;
    const ds = ctx.dataset();
    if (!view || !ds) return;
    this.fold.el.hidden = !view.chains;
    if (!view.chains || !this.fold.showing(ctx)) return;
    const width = ctx.width();
    if (!this.fold.drawn.changed(view, ds, width)) return;
    const shape = patternShape(view.m, ds.shape);
    const count = Math.floor(view.chains.length / view.m);
    const small = shape[1] <= 8;
    const layout = tileLayout(count, shape, width, { cols: Math.min(count, 12), gap: small ? 4 : 2, maxCell: small ? 5 : 2 });
    drawPixels(this.fold.canvas, greyPixels(view.chains, view.m, layout));
    const states = view.chains;
    const m = view.m;
    this.hit = (x, y) => {
      const k = tileAt(layout, x, y);
      return k === null ? null : sampleReadout(states, m, k, count);
    };
    const text = `The current visible states of the first ${count} chains of the negative phase at update ${view.iter.toLocaleString('en')}${dataFamily(ds) === 'images' ? ' (samples of the model, 0/1: black is 1)' : ''}.`;
    this.fold.canvas.setAttribute('aria-label', text);
    setText(this.fold.caption, text);
  }
}

export const chainsPanel: PanelKind = {
  name: 'chains',
  title: 'samples of the chains',
  help: "The current states of the first sampling chains: what the model generates. PCD's chains persist across updates; CD's restart at the data at every update.",
  term: 'chains',
  create: () => new ChainsPanel(),
};
