// The lane's model file: download it (JSON, with the lane's training recorded; the CLI reads
// the same file), or load one back (chosen or dropped) to continue training from it; and the
// lane's curve as the page holds it (CSV), which outlives the lane's worker.

import type { LaneHandle } from '../../app/lane';
import { el, setText } from '../dom';
import type { LanePanel, PanelContext, PanelKind } from './panel';

class DownloadPanel implements LanePanel {
  private button!: HTMLButtonElement;
  private curve!: HTMLButtonElement;
  private pick!: HTMLInputElement;
  private line!: HTMLElement;

  mount(container: HTMLElement, ctx: PanelContext): void {
    this.button = el('button', { type: 'button', className: 'export', textContent: 'Download model (JSON)' });
    this.button.addEventListener('click', () => ctx.exportModel());
    this.curve = el('button', { type: 'button', className: 'export-curve', textContent: 'Download curve (CSV)' });
    this.curve.title = "the lane's exact log-likelihood points as the chart holds them; kept when the lane's worker dies";
    this.curve.addEventListener('click', () => ctx.exportCurve());
    const id = `${ctx.idPrefix}-model-file`;
    this.pick = el('input', { type: 'file', id, className: 'file-input model-file', accept: '.json,.rbm,.bin,.gz,application/json,application/gzip' });
    this.pick.addEventListener('change', () => {
      const f = this.pick.files?.[0];
      this.pick.value = ''; // the same file again is a new choice
      if (f) ctx.loadModel(f);
    });
    const label = el('label', { htmlFor: id, className: 'file-button' }, 'Load model…');
    label.title = 'continue this lane from a model file (downloaded from a lane, or saved by rbm train); or drop one on the lane';
    this.line = el('p', { className: 'model-file-line', role: 'status' });
    container.append(el('div', { className: 'inline' }, this.button, this.curve, this.pick, label), this.line);
    // Dropping a file anywhere on the panel loads it too.
    container.addEventListener('dragover', (e) => {
      if (e.dataTransfer?.types.includes('Files')) e.preventDefault();
    });
    container.addEventListener('drop', (e) => {
      const f = e.dataTransfer?.files[0];
      if (!f) return;
      e.preventDefault();
      ctx.loadModel(f);
    });
  }

  update(lane: LaneHandle): void {
    this.button.disabled = lane.status === 'loading' || lane.status === 'fatal';
    this.pick.disabled = lane.status === 'loading' || lane.status === 'fatal';
    this.curve.disabled = lane.curve.iter.length === 0;
    const f = lane.modelFile;
    const text = !f
      ? ''
      : f.state === 'loading'
        ? `loading '${f.name}'…`
        : f.state === 'loaded'
          ? `continues '${f.name}' from update ${(lane.curve.iter[0] ?? 0).toLocaleString('en')} with its recorded settings (Reset returns to it)`
          : (f.message ?? `'${f.name}' was not loaded`);
    setText(this.line, text);
    this.line.classList.toggle('field-error', f?.state === 'refused');
    this.line.setAttribute('role', f?.state === 'refused' ? 'alert' : 'status');
  }
}

export const downloadPanel: PanelKind = {
  name: 'download',
  title: 'model file',
  help: "Download the lane's current model as a JSON file with its training settings recorded (the rbm command line reads it too), or load one back: the lane continues from the saved update with the file's settings. Download curve (CSV) saves the lane's exact log-likelihood points as the chart holds them, also after its worker died.",
  create: () => new DownloadPanel(),
};
