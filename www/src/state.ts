// The page's state and its pure logic: settings, lanes, option inputs and curves. No DOM here.
import type { CurvePoint, LaneView } from './protocol';
import type { AlgoInfo, Catalog, CoreConfig } from './types';

/** Settings shared by every lane (a fair race: same data, model size, seed and schedule). */
export interface Settings {
  dataset: string;
  hidden: number;
  seed: number;
  init: string;
  every: number;
  /** Every lane pauses at this update (a preset's length); null: runs on. */
  stop: number | null;
}

/** The first screen: the UCD paper's set-up on Bars & Stripes 4×4 (its published code). */
export const FIRST_SETTINGS: Settings = { dataset: 'bas4', hidden: 16, seed: 1, init: 'ucd', every: 100, stop: null };
export const FIRST_LANES = ['cd', 'pcd'];
/** Per-lane values the first screen uses where the core's defaults differ. */
export const FIRST_OPTIONS: Record<string, string> = { lr: '0.1', k: '1', chains: '1000' };

/** How an option is entered and explained. */
export interface OptionInfo {
  label: string;
  help: string;
  kind: 'int' | 'float';
  /** Empty input means "the core's default" (shown as the placeholder). */
  optional?: boolean;
  min?: number;
  step?: string;
}

/** Known options. An option a new algorithm declares that is not listed here still gets an input. */
export const OPTION_INFO: Record<string, OptionInfo> = {
  lr: { label: 'learning rate η', help: 'step size of every update', kind: 'float', min: 0, step: 'any' },
  k: { label: 'Gibbs sweeps k', help: 'sweeps (h|v then v|h) per update', kind: 'int', min: 1 },
  chains: { label: 'chains', help: 'negative-phase chains (empty: one per batch row)', kind: 'int', min: 1, optional: true },
  batch: { label: 'batch size', help: 'rows per update (empty: the whole data set)', kind: 'int', min: 1, optional: true },
  d: { label: 'inner steps d', help: 'S-DCP / CS-DCP inner steps per update', kind: 'int', min: 1 },
  kprime: { label: "sweeps per inner step K′", help: "S-DCP / CS-DCP Gibbs sweeps per inner step", kind: 'int', min: 1 },
  max_steps: { label: 'cap T_max', help: 'UCD: cap on the coupled steps', kind: 'int', min: 1 },
  nu_mu: { label: 'ν_μ', help: 'sliding factor of the visible offset μ', kind: 'float', min: 0, step: 'any' },
  nu_lambda: { label: 'ν_λ', help: 'sliding factor of the hidden offset λ', kind: 'float', min: 0, step: 'any' },
  fast_lr: { label: 'fast learning rate η_F', help: 'FPCD fast weights (empty: η)', kind: 'float', min: 0, step: 'any', optional: true },
  fast_decay: { label: 'fast decay α', help: 'FPCD decay of the fast weights', kind: 'float', min: 0, step: 'any' },
  momentum: { label: 'momentum', help: 'momentum of the updates', kind: 'float', min: 0, step: 'any' },
  weight_decay: { label: 'weight decay', help: 'L2 penalty on W', kind: 'float', min: 0, step: 'any' },
  lr_decay_iters: { label: 'η decays to 0 over', help: 'updates (empty: constant η)', kind: 'int', min: 1, optional: true },
};

export function optionInfo(key: string): OptionInfo {
  return OPTION_INFO[key] ?? { label: key.replace(/_/g, ' '), help: `option ${key}`, kind: 'float', step: 'any' };
}

/** The inputs a lane of `algo` shows: the learning rate, then the algorithm's own options. */
export function laneOptionKeys(algo: AlgoInfo | undefined): string[] {
  return ['lr', ...(algo?.options ?? ['k']).filter((k) => k !== 'lr')];
}

export type Parsed = { ok: true; value: number | null } | { ok: false; message: string };

/** Reads an input's text as the option's value (`null`: the core's default). Ranges are the core's job. */
export function parseOption(info: OptionInfo, text: string): Parsed {
  const t = text.trim();
  if (t === '') return info.optional ? { ok: true, value: null } : { ok: false, message: `${info.label}: enter a number` };
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return { ok: false, message: `${info.label}: "${t}" is not a number` };
  const value = Number(t);
  if (info.kind === 'int' && !Number.isInteger(value)) return { ok: false, message: `${info.label}: enter a whole number` };
  if (!Number.isFinite(value)) return { ok: false, message: `${info.label}: the number is too large` };
  return { ok: true, value };
}

/** A point series kept small: beyond `max` points, every other point is dropped. */
export interface Curve {
  iter: number[];
  sweeps: number[];
  atll: number[];
}

export const MAX_POINTS = 1500;

export function emptyCurve(): Curve {
  return { iter: [], sweeps: [], atll: [] };
}

/** Appends points (in iteration order), thinning the curve to at most `max` points. */
export function appendPoints(c: Curve, points: CurvePoint[], max = MAX_POINTS): void {
  for (const p of points) {
    const last = c.iter.length ? c.iter[c.iter.length - 1] : -1;
    if (p.iter <= last) continue;
    c.iter.push(p.iter);
    c.sweeps.push(p.sweeps);
    c.atll.push(p.atll);
    if (c.iter.length > max) {
      const keep = (_: number, i: number) => i % 2 === 0 || i === c.iter.length - 1;
      c.iter = c.iter.filter(keep);
      c.sweeps = c.sweeps.filter(keep);
      c.atll = c.atll.filter(keep);
    }
  }
}

export type LaneStatus = 'loading' | 'ready' | 'running' | 'paused' | 'done' | 'failed' | 'broken';

export interface Lane {
  /** Stable id; also the core's `lane` index, so lanes of one seed draw independent samples. */
  id: number;
  algo: string;
  /** The paper's name for the lane when a preset made it (e.g. "S-DCP d=3 K'=4"). */
  label: string | null;
  /** The text in each option input. */
  inputs: Record<string, string>;
  /** Per-input messages (unparsable text, or the core's refusal). */
  fieldErrors: Record<string, string>;
  status: LaneStatus;
  /** The lane's own message (divergence, a worker failure). */
  message: string | null;
  seed: string;
  iter: number;
  rate: number;
  stats: Record<string, number>;
  curve: Curve;
  view: LaneView | null;
}

/** A new lane; `preset` gives a preset's label and inputs instead of the first screen's. */
export function newLane(id: number, algo: string, catalog: Catalog | null, preset?: { label: string; inputs: Record<string, string> }): Lane {
  const inputs: Record<string, string> = preset ? { ...preset.inputs } : {};
  const info = catalog?.algorithms.find((a) => a.name === algo);
  if (!preset) {
    for (const key of laneOptionKeys(info)) {
      const d = catalog?.defaults[key];
      inputs[key] = FIRST_OPTIONS[key] ?? (d === null || d === undefined ? '' : String(d));
    }
  }
  return {
    id, algo, label: preset?.label ?? null, inputs, fieldErrors: {}, status: 'loading', message: null, seed: '',
    iter: 0, rate: 0, stats: {}, curve: emptyCurve(), view: null,
  };
}

/** The lane's configuration for the core, or the input messages that prevent one. */
export function laneConfig(settings: Settings, lane: Lane): { config: CoreConfig } | { errors: Record<string, string> } {
  const config: CoreConfig = {
    algo: lane.algo,
    hidden: settings.hidden,
    seed: settings.seed,
    init: settings.init,
    every: settings.every,
    lane: lane.id,
  };
  const errors: Record<string, string> = {};
  for (const [key, text] of Object.entries(lane.inputs)) {
    const p = parseOption(optionInfo(key), text);
    if (!p.ok) errors[key] = p.message;
    else if (p.value !== null) config[key] = p.value;
  }
  return Object.keys(errors).length ? { errors } : { config };
}

/** The settings the inputs describe, or a message per bad input. */
export function parseSettings(text: Record<keyof Settings, string>): { settings: Settings } | { errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const int = (key: 'hidden' | 'seed' | 'every' | 'stop', label: string, min: number, max: number): number => {
    const t = text[key].trim();
    const v = Number(t);
    if (t === '' || !Number.isInteger(v) || v < min || v > max) errors[key] = `${label}: enter a whole number from ${min} to ${max}`;
    return v;
  };
  const settings: Settings = {
    dataset: text.dataset,
    hidden: int('hidden', 'hidden units', 1, 1_000_000),
    seed: int('seed', 'seed', 0, Number.MAX_SAFE_INTEGER),
    init: text.init,
    every: int('every', 'evaluate every', 1, 1_000_000),
    stop: text.stop.trim() === '' ? null : int('stop', 'stop at update', 1, 1_000_000_000),
  };
  return Object.keys(errors).length ? { errors } : { settings };
}

/** Gibbs sweeps per chain per update so far (the compute an update costs), from the latest point. */
export function sweepsPerUpdate(c: Curve): number | null {
  const n = c.iter.length;
  return n && c.iter[n - 1] > 0 ? c.sweeps[n - 1] / c.iter[n - 1] : null;
}

/** Formats an updates-per-second figure. */
export function formatRate(r: number): string {
  if (!(r > 0)) return '–';
  return r >= 1000 ? `${(r / 1000).toFixed(1)}k/s` : `${r.toFixed(0)}/s`;
}

/** Formats a statistic for the lane panel. */
export function formatStat(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (Number.isInteger(x)) return String(x);
  return Math.abs(x) >= 100 ? x.toFixed(1) : x.toPrecision(3);
}
