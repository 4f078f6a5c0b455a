// The page's controller, DOM-free: the state the URL holds (state.ts), the lane handles and
// every action of the controls. The views (controls.ts, laneCard.ts, panels/) read it and call
// its actions; it tells them when to draw again. Lanes' statuses are their workers' (lane.ts):
// the page is "running" while some lane says it runs.
import type { Axis } from './chartData';
import type { Catalog, DataSetEntry } from './generated/core';
import { type LaneEvents, LaneHandle, type WorkerFactory } from './lane';
import { presetPlan } from './presets';
import { type OptionValue, optionSpec, parseOption } from './schema';
import { cloneState, firstScreen, laneConfig, MAX_STOP, newLaneState, type PageState } from './state';

export interface AppEvents {
  /** Something shown changed: draw again (soon). */
  changed(): void;
  /** A file to hand to the user. */
  download(name: string, text: string): void;
}

export class App {
  data = '';
  shared: Record<string, OptionValue> = {};
  axis: Axis = 'iter';
  stop: number | null = null;
  preset: string | null = null;
  rate = 0;
  lanes: LaneHandle[] = [];
  /** Messages for settings inputs whose text the page could not read ('data', 'stop' or a shared key). */
  settingErrors: Record<string, string> = {};
  /** Notices about the page's link (values it ignored). */
  notices: string[] = [];
  /** The preset's lanes this core cannot run. */
  missing: { label: string; algo: string }[] = [];
  private readonly laneEvents: LaneEvents;

  constructor(
    readonly catalog: Catalog,
    private readonly factory: WorkerFactory,
    private readonly events: AppEvents,
  ) {
    this.laneEvents = {
      changed: () => this.events.changed(),
      model: (lane, json) => this.events.download(`rbm-${lane.algo}-seed${lane.seed}-update${lane.iter}.json`, json),
    };
  }

  /** The page's state (what the URL holds). */
  state(): PageState {
    return cloneState({
      data: this.data,
      shared: this.shared,
      lanes: this.lanes.map((l) => ({ id: l.id, algo: l.algo, label: l.label, options: l.options })),
      axis: this.axis,
      stop: this.stop,
      preset: this.preset,
      rate: this.rate,
    });
  }

  /** Replaces everything by `state`: every lane gets a new worker. */
  load(state: PageState): void {
    for (const lane of this.lanes) lane.dispose();
    const s = cloneState(state);
    this.data = s.data;
    this.shared = s.shared;
    this.axis = s.axis;
    this.stop = s.stop;
    this.preset = s.preset;
    this.rate = s.rate;
    this.settingErrors = {};
    const preset = this.catalog.presets.find((p) => p.name === s.preset);
    this.missing = (preset?.lanes ?? []).filter((l) => !this.catalog.algorithms.some((a) => a.name === l.algo)).map((l) => ({ label: l.label, algo: l.algo }));
    this.lanes = [];
    for (const l of s.lanes) this.spawn(l);
    this.events.changed();
  }

  dataset(): DataSetEntry | undefined {
    return this.catalog.data_sets.find((d) => d.name === this.data);
  }

  running(): boolean {
    return this.lanes.some((l) => l.status === 'running');
  }

  private spawn(state: PageState['lanes'][number]): LaneHandle {
    const lane = new LaneHandle(state, this.factory, this.laneEvents);
    this.lanes.push(lane);
    lane.limit(this.stop);
    this.configure(lane);
    return lane;
  }

  private configure(lane: LaneHandle): void {
    lane.configure(laneConfig(this.shared, lane), this.data);
  }

  private configureAll(): void {
    for (const lane of this.lanes) this.configure(lane);
    this.events.changed();
  }

  // ---- run controls ------------------------------------------------------------------------

  start(): void {
    for (const lane of this.lanes) lane.start();
  }

  pause(): void {
    for (const lane of this.lanes) lane.pause();
  }

  toggle(): void {
    if (this.running()) this.pause();
    else this.start();
  }

  /** Every lane back to update 0, paused (same seed: the same curves again). */
  reset(): void {
    for (const lane of this.lanes) {
      lane.pause();
      lane.reset();
    }
  }

  /** A fresh worker for a lane whose worker broke, with the same configuration. */
  restart(lane: LaneHandle): void {
    lane.restart();
  }

  exportModel(lane: LaneHandle): void {
    lane.exportModel();
  }

  // ---- settings ----------------------------------------------------------------------------

  /** A shared option's input changed. */
  setShared(key: string, text: string): void {
    const spec = optionSpec(this.catalog, key);
    if (!spec) return;
    const p = parseOption(spec, text);
    if (!p.ok) {
      this.settingErrors[key] = p.message;
      this.events.changed();
      return;
    }
    delete this.settingErrors[key];
    this.shared[key] = p.value;
    this.configureAll();
  }

  setData(name: string): void {
    if (!this.catalog.data_sets.some((d) => d.name === name)) return;
    this.data = name;
    this.configureAll();
  }

  /** The end point changed: the lanes only learn where to stop. */
  setStop(text: string): void {
    const t = text.trim();
    const n = Number(t);
    if (t !== '' && !(/^\d+$/.test(t) && n >= 1 && n <= MAX_STOP)) {
      this.settingErrors.stop = `stop at update must be a whole number from 1 to ${MAX_STOP}, or empty to run on, got '${t}'`;
      this.events.changed();
      return;
    }
    delete this.settingErrors.stop;
    this.stop = t === '' ? null : n;
    for (const lane of this.lanes) lane.limit(this.stop);
    this.events.changed();
  }

  setAxis(axis: Axis): void {
    this.axis = axis;
    this.events.changed();
  }

  /** The message under a settings input: the page's own, else a lane's refusal of that key. */
  settingError(key: string): string {
    if (this.settingErrors[key]) return this.settingErrors[key];
    const refusal = this.lanes.map((l) => l.rejection).find((r) => r?.key === key);
    return refusal ? `${refusal.message} (not applied)` : '';
  }

  // ---- lanes -------------------------------------------------------------------------------

  addLane(algo: string): LaneHandle | null {
    if (!this.catalog.algorithms.some((a) => a.name === algo)) return null;
    const id = Math.max(-1, ...this.lanes.map((l) => l.id)) + 1;
    const race = this.running();
    const lane = this.spawn(newLaneState(this.catalog, id, algo));
    if (race) lane.start();
    this.events.changed();
    return lane;
  }

  removeLane(lane: LaneHandle): void {
    lane.dispose();
    this.lanes = this.lanes.filter((l) => l !== lane);
    this.events.changed();
  }

  /** A lane option's input changed. */
  setLaneOption(lane: LaneHandle, key: string, text: string): void {
    const spec = optionSpec(this.catalog, key);
    if (!spec || !(key in lane.options)) return;
    const p = parseOption(spec, text);
    if (!p.ok) {
      lane.inputErrors[key] = p.message;
      this.events.changed();
      return;
    }
    delete lane.inputErrors[key];
    lane.options[key] = p.value;
    this.configure(lane);
    this.events.changed();
  }

  /** The message under a lane's option input: the page's own, else the core's refusal. */
  laneInputError(lane: LaneHandle, key: string): string {
    if (lane.inputErrors[key]) return lane.inputErrors[key];
    return lane.rejection?.key === key && key in lane.options ? `${lane.rejection.message} (not applied)` : '';
  }

  /** A refusal of the core that names no input of the page (shown on the lane itself). */
  laneRejection(lane: LaneHandle): string | null {
    const r = lane.rejection;
    if (!r) return null;
    if (r.key && (r.key in lane.options || r.key === 'data' || r.key in this.shared)) return null;
    return r.message;
  }

  // ---- presets -----------------------------------------------------------------------------

  /** Replaces every lane: the page becomes the paper's experiment `name` at its rate `rateIndex`,
   * or the first screen (null), keeping the seed. */
  applyPreset(name: string | null, rateIndex = 0): void {
    const seed = this.shared.seed ?? null;
    const p = this.catalog.presets.find((x) => x.name === name);
    if (!p) {
      const s = firstScreen(this.catalog);
      if ('seed' in s.shared) s.shared.seed = seed;
      this.load(s);
      return;
    }
    this.load(presetPlan(p, this.catalog, rateIndex, seed).state);
  }

  /** A preset's other learning rate: every lane's η changes, nothing else. */
  applyRate(rateIndex: number): void {
    const p = this.catalog.presets.find((x) => x.name === this.preset);
    if (!p || !(rateIndex >= 0 && rateIndex < p.rates.length)) return;
    this.rate = rateIndex;
    for (const lane of this.lanes) {
      if (!('lr' in lane.options)) continue;
      lane.options.lr = p.rates[rateIndex];
      delete lane.inputErrors.lr;
    }
    this.configureAll();
  }
}
