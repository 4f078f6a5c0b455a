// The page's views put together: controls, the likelihood chart and one card per lane, drawn
// at most once per frame after any change; every draw also writes the page's state into its
// URL hash (history.replaceState: no history entry per change).
import type { App } from '../app/app';
import { laneColour, laneDash } from '../app/chartData';
import type { LaneHandle } from '../app/lane';
import { encodeState } from '../app/urlState';
import { LIKELIHOOD_CHART, LikelihoodChart } from './chart';
import { curvesModel, likelihoodLabel, studyModel } from './chartModel';
import { ClaimMapView } from './claimMapView';
import { ClassroomView } from './classroomView';
import { Controls } from './controls';
import { $ } from './dom';
import { LaneCard, laneName } from './laneCard';
import { pngName } from './png';
import { StudyView } from './studyView';

export class Page {
  private readonly controls: Controls;
  private readonly studyView: StudyView;
  private readonly claimMaps: ClaimMapView;
  readonly classroom: ClassroomView;
  private readonly chart = new LikelihoodChart($('#chart'), {
    ...LIKELIHOOD_CHART,
    pngName: () => pngName(this.app.preset ?? this.app.data, this.app.studyMode() ? 'trials' : '', 'log-likelihood'),
    pngTitle: () => ({ title: this.chartTitle(), footer: `Made with RBM Playground: ${window.location.href}` }),
  });
  private readonly lanesEl = $('#lanes');
  private readonly cards = new Map<LaneHandle, LaneCard>();
  private frame = 0;
  /** Called after every draw (e.g. the guided tour's progress). */
  readonly onRender: (() => void)[] = [];

  /** The chart's title in its PNG: the experiment, and whether it is one run or trials' medians. */
  private chartTitle(): string {
    const app = this.app;
    const p = app.catalog.presets.find((x) => x.name === app.preset);
    const what = p ? `${p.title} (${p.paper})` : `RBM Playground, ${app.dataset()?.description ?? app.data}`;
    const run = app.study;
    const how = run ? `medians of ${run.study.plan.runs} trial${run.study.plan.runs === 1 ? '' : 's'} per lane` : 'one live run per lane';
    return `${what}: ${how}`;
  }

  constructor(private readonly app: App) {
    this.classroom = new ClassroomView(app);
    this.controls = new Controls(app, (algo) => {
      const lane = app.addLane(algo);
      if (lane) {
        this.render();
        this.cards.get(lane)?.focus();
      }
    });
    this.studyView = new StudyView(app);
    this.claimMaps = new ClaimMapView(app);
    window.addEventListener('resize', () => {
      this.chart.resize();
      this.schedule();
    });
  }

  /** Whether everything changed so far is drawn (no draw waits for its frame). */
  drawn(): boolean {
    return this.frame === 0;
  }

  schedule(): void {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.render());
  }

  render(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    const app = this.app;
    this.classroom.update();
    this.controls.update();
    const bound = app.dataset()?.bound ?? null;
    const run = app.studyMode() ? app.study : null;
    if (run) {
      // A study's lanes are the lanes it was made of (the page's lanes, unless it is stale).
      const lanes = run.study.plan.lanes.map((l) => ({ label: l.label, colour: laneColour(l.id), dash: laneDash(l.id) }));
      this.chart.update(studyModel(run.study, lanes, app.axis, app.wide, bound), app.axis);
    } else {
      const lanes = app.lanes.map((l) => ({
        label: `${laneName(app, l)} (lane ${l.id})`,
        colour: laneColour(l.id),
        dash: laneDash(l.id),
        curve: l.curve,
        brackets: l.brackets,
      }));
      this.chart.update(curvesModel(lanes, app.axis, bound), app.axis, likelihoodLabel(app.lanes));
    }
    this.studyView.update();
    this.claimMaps.update();
    this.syncCards();
    const hash = `#${encodeState(app.catalog, app.state(), app.view)}`;
    if (window.location.hash !== hash) history.replaceState(null, '', hash);
    for (const f of this.onRender) f();
  }

  /** One card per lane, in the lanes' order. */
  private syncCards(): void {
    const live = new Set(this.app.lanes);
    for (const [lane, card] of this.cards) {
      if (!live.has(lane)) {
        card.el.remove();
        this.cards.delete(lane);
      }
    }
    this.app.lanes.forEach((lane, i) => {
      let card = this.cards.get(lane);
      if (!card) {
        const c = new LaneCard(
          this.app,
          lane,
          () => {
            this.app.removeLane(lane);
            $<HTMLElement>('#add-algo').focus();
          },
          () => this.schedule(),
        );
        this.cards.set(lane, c);
        card = c;
      }
      // Moved only when out of order: a move would take the focus from its inputs.
      if (this.lanesEl.children[i] !== card.el) this.lanesEl.insertBefore(card.el, this.lanesEl.children[i] ?? null);
      card.update();
    });
  }
}
