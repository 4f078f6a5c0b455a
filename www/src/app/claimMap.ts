// The claims explorer's map, DOM-free (issue 29): from the `claim` lines of `rbm explore`
// (docs/explorer.md), per claim a grid over two chosen axes of where it holds, each cell shaded
// by its margin (the signed distance from the claim's threshold, positive where it holds) and the
// preset's own setting marked. The other axes are held at one value each: the preset's own
// where the grid has it. A panel draws these; a study over the trial workers will produce the
// same lines (the core's `experiments::explore`), so the map does not care where they came from.

/** A grid axis: a setting of the explorer's cells. */
export type Axis = 'lr' | 'init_sigma' | 'k' | 'd' | 'kprime' | 'chains' | 'batch';

export const AXES: readonly Axis[] = ['lr', 'init_sigma', 'k', 'd', 'kprime', 'chains', 'batch'];

/** One `claim` line of `rbm explore` (the fields the map reads). */
export interface ExplorerClaim {
  cell: number;
  lr: number;
  /** null: the preset's own setting (likewise for the knobs). */
  init_sigma: number | null;
  k: number | null;
  d: number | null;
  kprime: number | null;
  chains: number | null;
  batch: number | null;
  preset_point: boolean;
  claim: string;
  holds: boolean | null;
  quantity?: string;
  /** JSON null when not finite. */
  value?: number | null;
  margin?: number | null;
}

/** One cell of a claim's map. */
export interface MapCell {
  cell: number;
  holds: boolean | null;
  value: number | null;
  margin: number | null;
  /** The margin scaled to [−1, 1] by the largest finite |margin| of the claim's map: the
   * colour's strength (sign: holds or fails); ±1 for an infinite margin, 0 when undecided. */
  shade: number;
  presetPoint: boolean;
}

/** A claim's map: rows over `y`, columns over `x`, the other axes held at `fixed`. */
export interface ClaimMap {
  claim: string;
  quantity: string;
  x: Axis;
  y: Axis;
  xs: (number | null)[];
  ys: (number | null)[];
  /** cells[row][column]; null where the grid has no such cell. */
  cells: (MapCell | null)[][];
  fixed: Partial<Record<Axis, number | null>>;
}

/** The `claim` lines of an explorer's output (other lines are skipped). */
export function explorerClaims(text: string): ExplorerClaim[] {
  const out: ExplorerClaim[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const v = JSON.parse(line);
    if (v?.type === 'claim') out.push(v as ExplorerClaim);
  }
  return out;
}

function distinct(values: (number | null)[]): (number | null)[] {
  const seen: (number | null)[] = [];
  for (const v of values) if (!seen.includes(v)) seen.push(v);
  // The preset's own (null) first, then ascending.
  return seen.sort((a, b) => (a === null ? -1 : b === null ? 1 : a - b));
}

/**
 * Per claim, its map over axes `x` and `y`. Every other axis with several values in the lines is
 * held at `fixed[axis]` when given, else at the preset point's value (or the smallest value).
 * `grid` gives the columns' and rows' values of the whole grid when only some of its cells have
 * lines yet (a run under way): the map then has every row and column, cells without a line empty.
 */
export function claimMaps(
  lines: ExplorerClaim[],
  x: Axis,
  y: Axis,
  fixed: Partial<Record<Axis, number | null>> = {},
  grid: { xs?: (number | null)[]; ys?: (number | null)[] } = {},
): ClaimMap[] {
  if (x === y) throw new Error(`the two axes must differ (both ${x})`);
  const held: Partial<Record<Axis, number | null>> = {};
  const own = lines.find((l) => l.preset_point);
  for (const a of AXES) {
    if (a === x || a === y) continue;
    const values = distinct(lines.map((l) => l[a]));
    if (values.length <= 1) continue;
    if (a in fixed) {
      if (!values.includes(fixed[a] ?? null)) throw new Error(`${a} = ${fixed[a]} is not a value of the grid (${values.join(', ')})`);
      held[a] = fixed[a] ?? null;
    } else held[a] = own && values.includes(own[a]) ? own[a] : values[0];
  }
  const kept = lines.filter((l) => AXES.every((a) => !(a in held) || l[a] === held[a]));
  const xs = distinct([...(grid.xs ?? []), ...kept.map((l) => l[x])]);
  const ys = distinct([...(grid.ys ?? []), ...kept.map((l) => l[y])]);
  const claims: string[] = [];
  for (const l of kept) if (!claims.includes(l.claim)) claims.push(l.claim);
  return claims.map((claim) => {
    const mine = kept.filter((l) => l.claim === claim);
    const finite = mine.map((l) => l.margin).filter((m): m is number => typeof m === 'number' && Number.isFinite(m));
    const scale = Math.max(0, ...finite.map(Math.abs));
    const cells = ys.map((yv) =>
      xs.map((xv): MapCell | null => {
        const l = mine.find((m) => m[x] === xv && m[y] === yv);
        if (!l) return null;
        const margin = typeof l.margin === 'number' ? l.margin : null;
        let shade = 0;
        if (l.holds !== null) {
          const sign = l.holds ? 1 : -1;
          shade = margin === null ? sign : scale > 0 ? Math.min(1, Math.abs(margin) / scale) * sign : 0;
        }
        return { cell: l.cell, holds: l.holds, value: typeof l.value === 'number' ? l.value : null, margin, shade, presetPoint: l.preset_point };
      }),
    );
    return { claim, quantity: mine.find((l) => l.quantity)?.quantity ?? '', x, y, xs, ys, cells, fixed: held };
  });
}
