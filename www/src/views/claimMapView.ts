// Where the paper's claims hold (issue 29): for a preset with a recorded claims-explorer run
// (www/explorer/, explorerRuns.ts), one map per claim over the learning rate η (columns) and the
// initial weights' σ (rows), under the claims' verdicts; below it, for every preset with claims,
// the page's own grid (explorerPanel.ts). Each cell is a table cell — readable by
// screen readers and on a phone — coloured by the verdict and shaded by its margin, the preset's
// own settings outlined. The runs are small (about 6 KB gzipped together) and part of the page,
// so the offline file has them too.
import type { App } from '../app/app';
import { type ExplorerRun, runMaps, runNote } from '../app/explorerRuns';
import { mapTable } from './claimMapTable';
import { $, setText } from './dom';
import { ExplorerPanel } from './explorerPanel';

const RUNS = import.meta.glob<ExplorerRun>('../../explorer/*.json', { eager: true, import: 'default' });

/** Preset `name`'s recorded run, if there is one. */
function runOf(name: string): ExplorerRun | null {
  return RUNS[`../../explorer/${name}.json`] ?? null;
}

export class ClaimMapView {
  private readonly section = $('#claim-maps');
  private readonly recorded = $('#claim-maps-recorded');
  private readonly note = $('#claim-maps-note');
  private readonly maps = $('#claim-maps-list');
  /** The page's own grid (explorerPanel.ts), below the recorded run. */
  readonly explorer: ExplorerPanel;
  /** The preset whose run is shown (null: none). */
  private shown: string | null = null;

  constructor(private readonly app: App) {
    this.explorer = new ExplorerPanel(app);
  }

  update(): void {
    this.explorer.update();
    const name = this.app.preset;
    if (name === this.shown) return;
    this.shown = name;
    const run = name ? runOf(name) : null;
    const claims = this.app.catalog.presets.find((x) => x.name === name)?.claims.length ?? 0;
    this.section.hidden = run === null && claims === 0;
    this.recorded.hidden = run === null;
    this.maps.replaceChildren();
    if (!run) return;
    const p = this.app.catalog.presets.find((x) => x.name === name);
    setText(this.note, runNote(run, p?.rates ?? []));
    this.maps.replaceChildren(...runMaps(run).map(mapTable));
  }
}
