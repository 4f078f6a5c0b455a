// The page's own claims-explorer grid, DOM-free (issue 29): which of the explorer's axes a
// preset offers (those some lane of it reads), each axis's default values around the preset's
// own setting, the user's fields read and checked (values, trials per cell, updates) with a
// message at the field, the request the core lays the grid out from (`explorePlan`), and the
// `rbm explore …` command line that reproduces the page's run cell for cell.
import type { Catalog, ExploreRequest, PresetEntry } from '../generated/core';
import type { Axis } from './claimMap';

/** Most cells of a grid the page runs. */
export const MAX_PAGE_CELLS = 64;
/** Most values of one axis. */
export const MAX_AXIS_VALUES = 8;
/** Most trials of a whole grid (cells × lanes × trials per cell). */
export const MAX_PAGE_TRIALS = 2000;
/** Most trials per cell and lane. */
export const MAX_CELL_TRIALS = 25;
/** Most updates per trial. */
export const MAX_EXPLORE_ITERS = 1_000_000;

/** Each axis: its name for people and the flag of `rbm explore` (the core's `AXES`). */
export const AXIS_INFO: Record<Axis, { label: string; symbol: string; flag: string; key: keyof ExploreRequest; whole: boolean }> = {
  lr: { label: 'learning rate η', symbol: 'η', flag: 'lrs', key: 'lrs', whole: false },
  init_sigma: { label: 'initial weights σ', symbol: 'σ', flag: 'init-sigmas', key: 'init_sigmas', whole: false },
  k: { label: 'Gibbs sweeps k', symbol: 'k', flag: 'ks', key: 'ks', whole: true },
  d: { label: 'inner steps d', symbol: 'd', flag: 'ds', key: 'ds', whole: true },
  kprime: { label: 'sweeps per inner step K′', symbol: 'K′', flag: 'kprimes', key: 'kprimes', whole: true },
  chains: { label: 'chains', symbol: 'chains', flag: 'chains', key: 'chains', whole: true },
  batch: { label: 'batch size', symbol: 'batch', flag: 'batches', key: 'batches', whole: true },
};

/** Why the page's explorer cannot run preset `p` (null: it can). */
export function exploreRefusal(p: PresetEntry): string | null {
  if (!p.claims.length) return `${p.name} states no claims to map.`;
  if (p.eval_data !== null)
    return `The page explores presets on the small data sets, whose curves are exact; ${p.name} is measured on ${p.eval_data}${p.ais ? ' by AIS' : ''}, too slow for this page's workers: run \`rbm explore ${p.name}\` on the command line (docs/explorer.md).`;
  return null;
}

/** Whether some lane of `p` reads option `key` (the general options every lane reads). */
function reads(p: PresetEntry, catalog: Catalog, key: string): boolean {
  if (catalog.options.some((o) => o.general && o.key === key)) return true;
  return p.lanes.some((l) => catalog.algorithms.find((a) => a.name === l.algo)?.options.includes(key));
}

/** The axes the page offers for `p`: η and σ always, each knob that some lane reads. */
export function exploreAxes(p: PresetEntry, catalog: Catalog): Axis[] {
  const knobs: Axis[] = ['k', 'd', 'kprime', 'chains', 'batch'];
  return ['lr', 'init_sigma', ...knobs.filter((a) => reads(p, catalog, a))];
}

/** The preset's own value of a knob: the one value every lane that reads it has (null: they
 * differ, or none sets it). */
function ownKnob(p: PresetEntry, catalog: Catalog, key: string): number | null {
  const values = new Set<number>();
  for (const l of p.lanes) {
    const a = catalog.algorithms.find((x) => x.name === l.algo);
    const general = catalog.options.some((o) => o.general && o.key === key);
    if (!general && !a?.options.includes(key)) continue;
    const v = l.config[key];
    if (typeof v === 'number') values.add(v);
  }
  return values.size === 1 ? [...values][0] : null;
}

/** The preset's own value of `axis` (`rate`: its learning rate shown; `ownSigma`: the
 * initialisation's own σ), or null when its lanes differ. */
export function ownValue(p: PresetEntry, catalog: Catalog, axis: Axis, rate: number, ownSigma: number): number | null {
  const rows = catalog.data_sets.find((d) => d.name === p.data)?.rows ?? null;
  switch (axis) {
    case 'lr':
      return rate;
    case 'init_sigma':
      return ownSigma;
    case 'batch':
      return p.batch ?? rows;
    case 'chains':
      return ownKnob(p, catalog, 'chains') ?? p.batch ?? rows;
    default:
      return ownKnob(p, catalog, axis);
  }
}

/** A number as the fields and the command line write it: JavaScript's shortest form, which
 * the command line reads back to the same bits. */
export function numberText(x: number): string {
  return String(x);
}

/** An axis's default values around the preset's own `own` (included): η/4, η/2, η, 2η; σ/10,
 * σ, 10σ; 1, k, 2k for the counts; half and all of a batch; rounded to 12 digits (0.3/4 is
 * 0.075, not 0.07500000000000001). */
export function defaultValues(axis: Axis, own: number | null, rows: number | null = null): number[] {
  if (own === null) return axis === 'lr' || axis === 'init_sigma' ? [] : [1];
  const t = (xs: number[]) => [...new Set(xs.map((x) => Number(x.toPrecision(12))))].sort((a, b) => a - b);
  switch (axis) {
    case 'lr':
      return t([own / 4, own / 2, own, 2 * own]);
    case 'init_sigma':
      return t([own / 10, own, own * 10]);
    case 'batch':
      return t([Math.max(1, Math.ceil(own / 2)), own]);
    case 'chains':
      return t([Math.max(1, Math.ceil(own / 2)), own, ...(rows === null || 2 * own <= 16 * rows ? [2 * own] : [])]);
    default:
      return t([1, own, 2 * own]);
  }
}

/** The text of an axis's values field, e.g. "0.075, 0.15, 0.3, 0.6". */
export function valuesText(values: number[]): string {
  return values.map(numberText).join(', ');
}

/** An axis's values read from its field: numbers separated by commas or spaces, each finite and
 * above 0 (whole for the counts), none twice, at most MAX_AXIS_VALUES; or the message for the
 * field. */
export function parseValues(axis: Axis, text: string): number[] | string {
  const { label, whole } = AXIS_INFO[axis];
  const parts = text
    .split(/[\s,;]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (!parts.length) return `give at least one value of the ${label}`;
  if (parts.length > MAX_AXIS_VALUES) return `at most ${MAX_AXIS_VALUES} values of the ${label}, got ${parts.length}`;
  const out: number[] = [];
  for (const s of parts) {
    const x = Number(s);
    if (!/^[0-9.eE+-]+$/.test(s) || !Number.isFinite(x)) return `'${s}' is not a number (values of the ${label}, separated by commas)`;
    if (x <= 0) return `every value of the ${label} must be above 0, got ${s}`;
    if (whole && !Number.isInteger(x)) return `every value of the ${label} must be a whole number, got ${s}`;
    if (out.includes(x)) return `${s} is given twice`;
    out.push(x);
  }
  return out;
}

/** A whole number from `min` to `max` read from a field, or the message for it. */
export function parseCount(text: string, what: string, min: number, max: number): number | string {
  const t = text.trim();
  const n = Number(t);
  if (!/^\d+$/.test(t) || n < min || n > max)
    return `${what} must be a whole number from ${min.toLocaleString('en')} to ${max.toLocaleString('en')}, got '${t}'`;
  return n;
}

/** A grid the user asked for: two axes, their values, and the run's settings. */
export interface GridChoice {
  preset: string;
  x: Axis;
  y: Axis;
  xs: number[];
  ys: number[];
  /** The learning rate the cells run at when η is not an axis. */
  rate: number;
  trials: number;
  iters: number;
  every: number;
  seed: number;
}

/** The request for the core (`explorePlan`): the two axes swept, η at `rate` when not swept,
 * every other setting the preset's own. */
export function gridRequest(g: GridChoice): ExploreRequest {
  const req: ExploreRequest = { seed: g.seed, trials_per_cell: g.trials, iters: g.iters, every: g.every };
  const set = (a: Axis, v: number[]) => Object.assign(req, { [AXIS_INFO[a].key]: v });
  if (g.x !== 'lr' && g.y !== 'lr') set('lr', [g.rate]);
  set(g.x, g.xs);
  set(g.y, g.ys);
  return req;
}

/** Why the grid is too big to run here (null: it is not): at most MAX_PAGE_CELLS cells and
 * MAX_PAGE_TRIALS trials in all (`lanes`: the preset's lanes). */
export function gridSizeProblem(g: GridChoice, lanes: number): string | null {
  const cells = g.xs.length * g.ys.length;
  if (cells > MAX_PAGE_CELLS)
    return `${cells} cells: the page runs at most ${MAX_PAGE_CELLS}; give fewer values (or run \`rbm explore\`, which splits over machines).`;
  const trials = cells * lanes * g.trials;
  if (trials > MAX_PAGE_TRIALS)
    return `${trials.toLocaleString('en')} trials (${cells} cells × ${lanes} lanes × ${g.trials}): the page runs at most ${MAX_PAGE_TRIALS.toLocaleString('en')}; give fewer values or trials per cell.`;
  return null;
}

/** The `rbm explore` command line that runs the same grid, cell for cell and bit for bit. */
export function exploreCommand(g: GridChoice): string {
  const req = gridRequest(g);
  const args = [`rbm explore ${g.preset}`];
  for (const a of Object.keys(AXIS_INFO) as Axis[]) {
    const v = req[AXIS_INFO[a].key] as number[] | undefined;
    if (v) args.push(`--${AXIS_INFO[a].flag} ${v.map(numberText).join(',')}`);
  }
  args.push(`--trials-per-cell ${g.trials}`, `--iters ${g.iters}`, `--every ${g.every}`, `--seed ${g.seed}`);
  return args.join(' ');
}
