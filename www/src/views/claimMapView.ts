// Where the paper's claims hold (issue 29): for a preset with a recorded claims-explorer run
// (www/explorer/, explorerRuns.ts), one map per claim over the learning rate η (columns) and the
// initial weights' σ (rows), under the claims' verdicts. Each cell is a table cell — readable by
// screen readers and on a phone — coloured by the verdict and shaded by its margin, the preset's
// own settings outlined. The runs are small (about 6 KB gzipped together) and part of the page,
// so the offline file has them too.
import type { App } from '../app/app';
import type { ClaimMap } from '../app/claimMap';
import { cellText, type ExplorerRun, runMaps, runNote } from '../app/explorerRuns';
import { $, el, setText } from './dom';

const RUNS = import.meta.glob<ExplorerRun>('../../explorer/*.json', { eager: true, import: 'default' });

/** Preset `name`'s recorded run, if there is one. */
function runOf(name: string): ExplorerRun | null {
  return RUNS[`../../explorer/${name}.json`] ?? null;
}

/** A cell's background: green where the claim holds, red where it fails, by the margin's size. */
function shadeColour(shade: number, holds: boolean | null): string {
  if (holds === null) return 'rgba(128, 128, 128, 0.15)';
  const alpha = (0.15 + 0.55 * Math.abs(shade)).toFixed(2);
  return holds ? `rgba(0, 140, 60, ${alpha})` : `rgba(210, 30, 30, ${alpha})`;
}

function mapTable(m: ClaimMap): HTMLElement {
  const head = el('tr', {}, el('th', { scope: 'col' }, 'σ \\ η'), ...m.xs.map((x) => el('th', { scope: 'col' }, String(x ?? 'own'))));
  const rows = m.ys.map((y, r) =>
    el(
      'tr',
      {},
      el('th', { scope: 'row' }, String(y ?? 'own')),
      ...m.xs.map((_, c) => {
        const cell = m.cells[r][c];
        if (!cell) return el('td', { className: 'empty' }, '–');
        const td = el(
          'td',
          { className: `${cell.holds === null ? 'undecided' : cell.holds ? 'holds' : 'fails'}${cell.presetPoint ? ' own-setting' : ''}` },
          cellText(cell.holds, cell.value),
        );
        td.style.background = shadeColour(cell.shade, cell.holds);
        return td;
      }),
    ),
  );
  return el(
    'figure',
    { className: 'claim-map' },
    el('figcaption', {}, m.claim, m.quantity ? el('span', { className: 'quantity' }, `cells: ${m.quantity}`) : ''),
    el('table', {}, el('thead', {}, head), el('tbody', {}, ...rows)),
  );
}

export class ClaimMapView {
  private readonly section = $('#claim-maps');
  private readonly note = $('#claim-maps-note');
  private readonly maps = $('#claim-maps-list');
  /** The preset whose run is shown (null: none). */
  private shown: string | null = null;

  constructor(private readonly app: App) {}

  update(): void {
    const name = this.app.preset;
    if (name === this.shown) return;
    this.shown = name;
    const run = name ? runOf(name) : null;
    this.section.hidden = run === null;
    this.maps.replaceChildren();
    if (!run) return;
    const p = this.app.catalog.presets.find((x) => x.name === name);
    setText(this.note, runNote(run, p?.rates ?? []));
    this.maps.replaceChildren(...runMaps(run).map(mapTable));
  }
}
