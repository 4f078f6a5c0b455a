// Downloads the lane's model as JSON (the CLI reads the same file).
import { el } from '../dom';
import type { LaneHandle } from '../lane';
import type { LanePanel, PanelContext, PanelKind } from './panel';

class DownloadPanel implements LanePanel {
  private button!: HTMLButtonElement;

  mount(container: HTMLElement, ctx: PanelContext): void {
    this.button = el('button', { type: 'button', className: 'export', textContent: 'Download model (JSON)' });
    this.button.addEventListener('click', () => ctx.exportModel());
    container.append(this.button);
  }

  update(lane: LaneHandle): void {
    this.button.disabled = lane.status === 'loading' || lane.status === 'fatal';
  }
}

export const downloadPanel: PanelKind = {
  name: 'download',
  title: 'download model',
  help: "The lane's current model as a JSON file, which the rbm command line reads too.",
  create: () => new DownloadPanel(),
};
