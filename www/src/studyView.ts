// The study's views beside the chart: its progress and time left, the choice of the wide
// band, and the paper's claims with their verdicts (claims.ts) — which replace the fixed
// "what to look for" text of a preset.
import type { App } from './app';
import { claimRows, claimsNote } from './claims';
import { $, el, setText } from './dom';
import { progressText } from './study';

export class StudyView {
  private readonly progress = $('#study-progress');
  private readonly wide = $<HTMLInputElement>('#band-wide');
  private readonly wideLabel = $('#band-wide-label');
  private readonly claims = $('#claims');
  private readonly note = $('#claims-note');
  private readonly list = $('#claims-list');
  private shown = '';

  constructor(private readonly app: App) {
    this.wide.addEventListener('change', () => app.setWide(this.wide.checked));
  }

  update(): void {
    const app = this.app;
    const study = app.studyMode();
    const run = app.study;
    let text = '';
    if (study && run) {
      const p = run.study.progress(run.workers);
      text = `Trials: ${progressText(p)}, on ${run.workers} worker${run.workers === 1 ? '' : 's'}`;
      if (run.status === 'paused') text += ' (paused)';
    } else if (study) {
      text = app.studyMessage ?? `Start runs ${app.trials} trial${app.trials === 1 ? '' : 's'} per lane.`;
    }
    setText(this.progress, text);
    this.progress.hidden = text === '';
    this.wideLabel.hidden = !study;
    this.wide.checked = app.wide;

    const p = app.catalog.presets.find((x) => x.name === app.preset);
    this.claims.hidden = !p || p.claims.length === 0;
    if (!p || this.claims.hidden) return;
    const verdicts = app.verdicts();
    const lr = p.rates[app.rate] ?? p.rates[0];
    const rows = claimRows(p, verdicts, { studies: study, started: run !== null, lr });
    const note = study
      ? claimsNote(p, verdicts, app.trials)
      : `What ${p.paper} reports, checked by \`rbm reproduce ${p.name}\` on ${p.trials} trial${p.trials === 1 ? '' : 's'} (the page runs this experiment as one live run per lane).`;
    const key = JSON.stringify([rows, note]);
    if (key === this.shown) return;
    this.shown = key;
    setText(this.note, note);
    this.list.replaceChildren(
      ...rows.map((r) => {
        const li = el(
          'li',
          {},
          el('span', { className: 'mark', ariaHidden: 'true' }, r.mark),
          el('span', { className: 'verdict' }, `${r.words}: `),
          r.text,
          el('span', { className: 'detail' }, r.detail),
        );
        li.dataset.status = r.status;
        return li;
      }),
    );
  }
}
