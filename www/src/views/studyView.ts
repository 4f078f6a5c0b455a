// The study's views beside the chart: its progress and time left, the choice of the wide
// band, and the paper's claims with their verdicts (claims.ts) — which replace the fixed
// "what to look for" text of a preset.
import type { App } from '../app/app';
import { laneColour } from '../app/chartData';
import { claimRows, claimsNote } from '../app/claims';
import { deviceNote, lossText, progressText, studyTaus } from '../app/study';
import type { StatSpec } from '../generated/core';
import { studyAisText } from '../workers/studyAis';
import { LikelihoodChart } from './chart';
import { statModel } from './chartModel';
import { $, el, setText } from './dom';
import { tauCaption, tauChart, tauColumns } from './panels/tauHistogram';
import { pngName } from './png';

/** The statistics a study's lanes report, each once (by key), with the lanes reporting it. */
export function studyStats(lanes: { label: string; stats: StatSpec[] }[]): { spec: StatSpec; lanes: string[] }[] {
  const out: { spec: StatSpec; lanes: string[] }[] = [];
  for (const l of lanes) {
    for (const spec of l.stats) {
      const have = out.find((o) => o.spec.key === spec.key);
      if (have) have.lanes.push(l.label);
      else out.push({ spec, lanes: [l.label] });
    }
  }
  return out;
}

/** A statistic's axis label: its label and unit (e.g. "mean stopping time τ, steps"). */
export function statLabel(spec: StatSpec): string {
  return spec.unit ? `${spec.label}, ${spec.unit}` : spec.label;
}

export class StudyView {
  private readonly progress = $('#study-progress');
  /** Where the study's trials run (study.ts deviceNote), made after the progress line. */
  private readonly device: HTMLElement;
  /** A GPU study's AIS worker: its batch under way and its batches (studyAis.ts studyAisText). */
  private readonly aisLine: HTMLElement;
  /** What failed trials cost the study and what it keeps (study.ts lossText). */
  private readonly lost = $('#study-lost');
  private readonly wide = $<HTMLInputElement>('#band-wide');
  private readonly wideLabel = $('#band-wide-label');
  private readonly claims = $('#claims');
  private readonly note = $('#claims-note');
  private readonly list = $('#claims-list');
  private shown = '';
  private readonly statsSection = $('#stats-section');
  private readonly statPick = $<HTMLSelectElement>('#stat-pick');
  private readonly statNote = $('#stat-note');
  private readonly statChart = new LikelihoodChart($('#stat-chart'), {
    yLabel: '',
    minWidth: 280,
    minHeight: 180,
    maxHeight: 260,
    pngName: () => pngName(this.app.preset ?? this.app.data, this.statPick.value, 'across-trials'),
  });
  private statOptions = '';

  private readonly exportBox = $('#study-export');
  private readonly tauBox = $('#tau-study');
  private readonly tauNote = $('#tau-study-note');
  private tauLane = '';
  private readonly tauChart = tauChart(laneColour(0), () => pngName(this.app.preset ?? this.app.data, this.tauLane, 'tau-histogram'));

  constructor(private readonly app: App) {
    this.device = el('p', { id: 'study-device', className: 'study-progress', hidden: true });
    this.device.setAttribute('role', 'status');
    this.progress.after(this.device);
    this.aisLine = el('p', { id: 'study-ais', className: 'study-progress', hidden: true });
    this.aisLine.setAttribute('role', 'status');
    this.device.after(this.aisLine);
    this.wide.addEventListener('change', () => app.setWide(this.wide.checked));
    $('#export-csv').addEventListener('click', () => app.exportRun('csv', window.location.href));
    $('#export-json').addEventListener('click', () => app.exportRun('json', window.location.href));
    this.statPick.addEventListener('change', () => this.update());
    window.addEventListener('resize', () => this.statChart.resize());
    $('#tau-study-chart').append(this.tauChart.el);
  }

  /** The statistics chart: one statistic of the lanes that report it, median and band. */
  private updateStats(): void {
    const run = this.app.studyMode() ? this.app.study : null;
    const stats = run ? studyStats(run.study.plan.lanes) : [];
    const started = run?.study.trials.some((ts) => ts.some((t) => t.points.length > 1)) ?? false;
    this.statsSection.hidden = !run || !stats.length || !started;
    if (!run || this.statsSection.hidden) return;
    const key = JSON.stringify(stats.map((s) => s.spec.key));
    if (key !== this.statOptions) {
      this.statOptions = key;
      this.statPick.replaceChildren(...stats.map((s) => new Option(`${s.lanes.join(', ')}: ${statLabel(s.spec)}`, s.spec.key)));
    }
    const chosen = stats.find((s) => s.spec.key === this.statPick.value) ?? stats[0];
    const every = run.study.plan.every;
    setText(
      this.statNote,
      `${chosen.spec.label}: ${chosen.spec.help}. Each point is the ${chosen.spec.over_updates === 'max' ? 'largest' : 'mean'} value over the ${every.toLocaleString('en')} updates before it; the line is its median across trials, the shaded band q10–q90.`,
    );
    const lanes = run.study.plan.lanes.map((l) => ({ label: l.label, colour: laneColour(l.id) }));
    this.statChart.update(statModel(run.study, lanes, chosen.spec.key, this.app.axis), this.app.axis, statLabel(chosen.spec));
    this.updateTaus();
  }

  /** The τ histogram of the first lane with stopping times (UCD), summed over its trials'
   * latest updates. */
  private updateTaus(): void {
    const run = this.app.study;
    const lanes = run?.study.plan.lanes ?? [];
    const i = lanes.findIndex((_, j) => run && studyTaus(run.study, j) !== null);
    const t = run && i >= 0 ? studyTaus(run.study, i) : null;
    this.tauBox.hidden = !t;
    if (!t) return;
    const lane = lanes[i];
    this.tauLane = lane.label;
    const c = tauColumns(t.counts);
    const at = t.from === t.to ? `update ${t.to.toLocaleString('en')}` : `updates ${t.from.toLocaleString('en')}–${t.to.toLocaleString('en')}`;
    const note = `${lane.label}: ${tauCaption(c, t.to, `chains of ${t.trials} trial${t.trials === 1 ? '' : 's'}`).replace(/ of update [\d,]+:/, ` at ${at} (each trial's latest):`)}`;
    setText(this.tauNote, note);
    this.tauBox.dataset.counts = t.counts.join(',');
    this.tauChart.set(c.x, [c.share], Math.max(280, this.tauBox.clientWidth || 600));
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
      const on = app.studyOn() === 'gpu' ? ` on the GPU (WebGPU${app.gpuAdapter ? `: ${app.gpuAdapter}` : ''})` : '';
      text = app.studyMessage ?? `Start runs ${app.trials} trial${app.trials === 1 ? '' : 's'} per lane${on}.`;
    }
    setText(this.progress, text);
    this.progress.hidden = text === '';
    const device = study && run ? deviceNote(run.study.devices()) : null;
    setText(this.device, device ?? '');
    this.device.hidden = device === null;
    // The study's GPU job (studyJob.ts), or its AIS worker (studyAis.ts): one line.
    const ais = study && run ? (run.jobText() ?? (run.ais ? studyAisText(run.ais.status, run.ais.lost) : null)) : null;
    setText(this.aisLine, ais ?? '');
    this.aisLine.hidden = ais === null;
    const lost = study && run ? lossText(run.study) : null;
    setText(this.lost, lost ?? '');
    this.lost.hidden = lost === null;
    this.wideLabel.hidden = !study;
    this.wide.checked = app.wide;
    // Every run exports its records: a study's trials, or each live lane's curve (issue 27).
    const studyRecords = study && run?.study.trials.some((ts) => ts.some((t) => t.points.length > 0));
    const liveRecords = !run && app.lanes.some((l) => l.curve.iter.length > 0);
    this.exportBox.hidden = !(studyRecords || liveRecords);
    setText(
      $('#export-what'),
      studyRecords
        ? `Every trial's curve and statistics${app.verdicts() ? ", and the claims' verdicts with their numbers" : ''}, with this page's address in the file:`
        : "Every lane's curve, with this page's address in the file:",
    );
    this.updateStats();

    const p = app.catalog.presets.find((x) => x.name === app.preset);
    this.claims.hidden = !p || p.claims.length === 0;
    if (!p || this.claims.hidden) return;
    const verdicts = app.verdicts();
    const lr = p.rates[app.rate] ?? p.rates[0];
    const brackets = !study && app.lanes.some((l) => l.aisEvery !== null || l.brackets.length > 0);
    setText($('#claims-title'), brackets ? "The paper's claims, checked on this run's AIS brackets" : "The paper's claims, checked on these trials");
    const rows = claimRows(p, verdicts, { studies: study, started: run !== null, lr, brackets });
    const note = study
      ? claimsNote(p, verdicts, app.trials)
      : brackets
        ? `What ${p.paper} reports, checked on this run's AIS brackets (the points on the chart; one live run per lane, so a verdict describes this run, not a median over trials as in the paper; \`rbm reproduce ${p.name}\` checks it on ${p.trials} trial${p.trials === 1 ? '' : 's'}).`
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
