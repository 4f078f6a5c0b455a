// A lane's card: its header (name, colour, remove), status line (update, epoch, pace, time
// spent and left; the data's download while it loads), the core's notice (why it has no exact
// curve), message (with "Restart lane" when its worker broke), then every panel of the
// registry (panels/index.ts).
import type { App } from '../app/app';
import { laneColour, laneDash, swatchBackground } from '../app/chartData';
import { panelPart } from '../app/classroom';
import { collapsed, sweepsPerUpdate } from '../app/curve';
import { glossaryTerm } from '../app/glossary';
import { fatalNote, type LaneHandle } from '../app/lane';
import { loadModelInto } from '../app/modelFile';
import { epochsDone, paceParts } from '../app/progress';
import { laneStudyLine } from '../app/study';
import { formatProgress } from '../protocol/data';
import type { LaneStatus } from '../protocol/messages';
import { algoEntry, type OptionValue } from '../protocol/schema';
import { formatValue } from './chartModel';
import { $, el, setAttr, setText } from './dom';
import { formatStat } from './format';
import { PANELS } from './panels';
import type { LanePanel, PanelContext } from './panels/panel';
import { slug } from './png';
import { termLink, tip } from './tips';

const WORDS: Record<LaneStatus, string> = {
  loading: 'loading…',
  ready: 'ready',
  running: 'training',
  paused: 'paused',
  done: 'finished',
  failed: 'stopped',
  fatal: 'broken',
};

/** What a lane whose configuration is not answered yet is doing: reading a model file, or
 * building the lane and computing the exact log Z of its first point (2^bits states). */
/** A study lane's status words: its trials run in the study's workers (the study line says how
 * far), its own worker keeps the starting model at update 0 for the panels. */
export function studyStatus(study: 'ready' | 'running' | 'paused' | 'done' | null): string[] {
  const word =
    study === 'running'
      ? 'in the study: trials running'
      : study === 'paused'
        ? 'in the study: paused'
        : study === 'done'
          ? 'in the study: done'
          : 'a study lane: its trials run on Start';
  return [word, 'panels: its starting model (update 0)'];
}

export function busyWord(lane: Pick<LaneHandle, 'modelFile'>, visible: number, shared: Record<string, OptionValue>): string {
  if (lane.modelFile?.state === 'loading') return 'loading the model file…';
  const hidden = typeof shared.hidden === 'number' ? shared.hidden : 0;
  const limit = typeof shared.exact_bits === 'number' ? shared.exact_bits : 0;
  const bits = Math.min(visible, hidden);
  return bits > 0 && bits <= limit ? `building… computing exact log Z (2^${bits} states)…` : 'building…';
}

/** The lane's name (App.laneTitle). */
export function laneName(app: App, lane: LaneHandle): string {
  return app.laneTitle(lane);
}

export class LaneCard {
  readonly el: HTMLElement;
  private readonly status: HTMLElement;
  private readonly studyLine: HTMLElement;
  private readonly notice: HTMLElement;
  private readonly error: HTMLElement;
  private readonly restart: HTMLButtonElement;
  /** The flag of a lane whose log-likelihood collapsed, with a Pause button. */
  private readonly collapse: HTMLElement;
  private readonly collapseText: HTMLElement;
  private readonly pause: HTMLButtonElement;
  private readonly panels: LanePanel[] = [];
  private readonly ctx: PanelContext;
  /** Whether the card is on screen (its drawings wait while it is not). */
  private onScreen = true;

  constructor(
    private readonly app: App,
    readonly lane: LaneHandle,
    onRemove: () => void,
    refresh: () => void,
  ) {
    const info = algoEntry(app.catalog, lane.algo);
    const pid = `lane-${lane.id}`;
    const sub = lane.label ? `${info?.title ?? lane.algo} — ${info?.paper ?? ''}` : (info?.paper ?? '');
    const swatch = el('span', { className: 'swatch', ariaHidden: 'true' });
    swatch.style.background = swatchBackground(laneColour(lane.id), laneDash(lane.id));
    const remove = el('button', { className: 'remove', type: 'button', title: 'Remove this lane', textContent: '✕' });
    remove.setAttribute('aria-label', `Remove lane ${laneName(app, lane)}`);
    remove.addEventListener('click', onRemove);
    remove.dataset.part = 'remove';
    this.status = el('p', { className: 'status' });
    this.studyLine = el('p', { className: 'study-line', hidden: true });
    this.notice = el('p', { className: 'lane-notice', role: 'status', hidden: true });
    this.error = el('p', { className: 'lane-error', role: 'alert', hidden: true });
    this.restart = el('button', { type: 'button', className: 'restart', hidden: true, textContent: 'Restart lane' });
    this.collapseText = el('span', {});
    this.pause = el('button', { type: 'button', className: 'collapse-pause', textContent: 'Pause this lane' });
    this.pause.addEventListener('click', () => lane.pause());
    this.collapse = el('p', { className: 'collapsed', role: 'status', hidden: true }, '⚠ ', this.collapseText, ' ', this.pause);
    this.restart.addEventListener('click', () => app.restart(lane));
    this.el = el(
      'article',
      { className: 'lane' },
      el(
        'header',
        {},
        swatch,
        el('h3', { id: `${pid}-title`, tabIndex: -1 }, laneName(app, lane), ' ', el('small', {}, sub)),
        // The algorithm in the glossary (MF-CD, FPCD, S-DCP, CG, CS-DCP, …).
        ...(glossaryTerm(lane.algo) ? [termLink(lane.algo, '(glossary)')] : []),
        remove,
      ),
      this.status,
      this.studyLine,
      this.collapse,
      this.notice,
      this.error,
      this.restart,
    );
    this.el.setAttribute('aria-labelledby', `${pid}-title`);
    this.el.dataset.laneId = String(lane.id);
    this.el.dataset.algo = lane.algo;
    this.ctx = {
      catalog: app.catalog,
      algo: info,
      dataset: () => app.dataset(),
      colour: laneColour(lane.id),
      idPrefix: pid,
      width: () => Math.max(200, this.el.clientWidth - 32),
      inputError: (key) => app.laneInputError(lane, key),
      setOption: (key, text) => app.setLaneOption(lane, key, text),
      viewOption: (key) => app.views[key] ?? null,
      viewError: (key) => app.settingErrors[key] ?? '',
      setViewOption: (key, text) => app.setView(key, text),
      exportModel: () => app.exportModel(lane),
      exportCurve: () => app.exportCurve(lane, window.location.href),
      loadModel: (file) => void loadModelInto(lane, file),
      traceStep: () => lane.traceStep(),
      resume: () => lane.start(),
      cancelExact: () => app.cancelExact(lane),
      evalWorkers: app.evalWorkers,
      refresh,
      fileStem: () => slug(`${app.preset ?? app.data} ${lane.label ?? lane.algo}`),
      visible: () => this.onScreen,
    };
    if (typeof IntersectionObserver !== 'undefined') {
      new IntersectionObserver((entries) => {
        const shown = entries.some((e) => e.isIntersecting);
        if (shown === this.onScreen) return;
        this.onScreen = shown;
        if (shown) refresh();
      }).observe(this.el);
    }
    for (const kind of PANELS) {
      const container = el('div', { className: `panel panel-${kind.name}` });
      container.dataset.part = panelPart(app.catalog, kind.name);
      if (kind.help) container.append(tip(kind.title ?? kind.name, kind.help, kind.term));
      const panel = kind.create();
      panel.mount(container, this.ctx);
      this.panels.push(panel);
      this.el.append(container);
    }
  }

  focus(): void {
    $<HTMLElement>('h3', this.el).focus();
  }

  update(): void {
    const lane = this.lane;
    const last = lane.curve.atll.length ? lane.curve.atll[lane.curve.atll.length - 1] : null;
    setAttr(this.el, 'data-status', lane.status);
    setAttr(this.el, 'data-iter', String(lane.iter));
    if (last !== null) setAttr(this.el, 'data-atll', String(last));
    const load = lane.dataLoad;
    let word = lane.status === 'loading' && load ? `loading data… ${load.label}, ${formatProgress(load.received, load.total)}` : WORDS[lane.status];
    // A configuration (or model file) the worker has not answered: it is building the lane and
    // evaluating its first point, which takes a while for large models.
    if (lane.answered < lane.sent && !load && lane.status !== 'fatal') word = busyWord(lane, this.app.dataset()?.m ?? 0, this.app.shared);
    if (lane.exact?.state === 'running' && (lane.status === 'running' || lane.status === 'ready')) word += ', waiting for its exact point';
    // A lane whose log-likelihood collapsed (η far too large) does not say "training" plainly.
    const fall = lane.status === 'fatal' || lane.status === 'loading' ? null : collapsed(lane.curve);
    if (fall && lane.status === 'running') word = 'training, collapsed';
    setAttr(this.el, 'data-collapsed', fall ? 'true' : 'false');
    this.collapse.hidden = fall === null;
    if (fall) {
      setText(
        this.collapseText,
        `Its log-likelihood collapsed: ${formatValue(fall.last)} now, from ${formatValue(fall.start)} at its start (more than 4× its rise below where it started, off the bottom of the chart; a learning rate η far too large does this).`,
      );
      this.pause.hidden = lane.status !== 'running';
    }
    // In a study the lane's own worker holds its starting model; its trials are in the study line.
    const inStudy = this.app.studyMode() && lane.status !== 'fatal' && lane.status !== 'loading';
    const parts = inStudy ? studyStatus(this.app.study?.status ?? null) : [word, `update ${lane.iter.toLocaleString('en')}`];
    const ds = this.app.dataset();
    // While data loads, the numbers are the old lane's: only the download is news.
    if (ds && !inStudy && !(lane.status === 'loading' && load)) {
      const batch = this.app.batchOf(lane);
      const pace = paceParts({
        iter: lane.iter,
        rate: lane.rate,
        elapsed: lane.elapsed,
        batch,
        rows: ds.rows,
        until: lane.limitAt,
        running: lane.status === 'running',
        // A deferred exact curve (the evaluation pool): the ETA counts the points to come.
        ...(lane.exact !== null || lane.exactWaits.points > 0
          ? { exactWait: { every: Math.max(1, lane.every), ms: lane.exactWaits.ms, points: lane.exactWaits.points, waiting: lane.exact?.state === 'running' } }
          : {}),
      });
      // With the whole data set per update, an epoch is an update: no need to say it twice.
      parts.push(...(batch < ds.rows ? pace : pace.slice(1)));
      setAttr(this.el, 'data-epoch', String(epochsDone(lane.iter, batch, ds.rows)));
    }
    const spu = sweepsPerUpdate(lane.curve);
    if (spu !== null) parts.push(`${formatStat(spu)} Gibbs sweeps/update`);
    if (last !== null) parts.push(inStudy ? `starting ATLL ${last.toFixed(4)}` : `ATLL ${last.toFixed(4)}`);
    if (lane.seed) parts.push(`seed ${lane.seed}, lane ${lane.id}`);
    if (lane.gpu) parts.push(`GPU (WebGPU): ${lane.gpu}`);
    setText(this.status, parts.join(' · '));
    // In a study the lane runs as trials in the trial workers; its own worker stays at update 0.
    const study = this.app.studyMode() ? this.app.study : null;
    const line = this.app.studyMode()
      ? study
        ? laneStudyLine(study.study, lane.id)
        : `Runs as ${this.app.trials} trial${this.app.trials === 1 ? '' : 's'} in the study when started; the panels below show its starting model.`
      : '';
    this.studyLine.hidden = line === '';
    setText(this.studyLine, line);
    this.notice.hidden = !lane.notice;
    setText(this.notice, lane.notice ?? '');
    const base = lane.message ?? this.app.laneRejection(lane);
    const note = fatalNote(lane);
    const message = base && note ? `${base}. ${note}` : base;
    this.error.hidden = !message;
    setText(this.error, message ?? '');
    this.restart.hidden = lane.status !== 'fatal';
    for (const panel of this.panels) panel.update(lane, this.ctx);
  }
}
