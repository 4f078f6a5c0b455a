// The claims explorer's recorded runs, DOM-free (issue 29): one file per preset in www/explorer/
// (written by scripts/explorer-data.mjs from `rbm explore`'s output, with the command that
// reproduces it), drawn as maps of where each of the paper's claims holds over the learning rate
// and the initial weights' scale (claimMap.ts). What the maps show is our measurement, said as
// such with its command; the paper's claims are the paper's.
import { type ClaimMap, claimMaps, type ExplorerClaim } from './claimMap';

/** A recorded explorer run of a preset (www/explorer/PRESET.json). */
export interface ExplorerRun {
  preset: string;
  /** The command line that produced it (it reproduces every cell bit for bit). */
  command: string;
  seed: number;
  trials_per_cell: number;
  iters: number;
  /** The initialisation's own σ (the preset's cells are at it). */
  own_init_sigma: number;
  claims: ExplorerClaim[];
}

/** The run's maps over η (columns) and σ (rows), one per claim, in the preset's claim order. */
export function runMaps(run: ExplorerRun): ClaimMap[] {
  return claimMaps(run.claims, 'lr', 'init_sigma');
}

/** The note under the maps: whose measurement, how to reproduce it, how to read a cell. */
export function runNote(run: ExplorerRun, rates: readonly number[]): string {
  const own = rates.map((r) => `η = ${r}`).join(' and ');
  return (
    `Our measurement, not the paper's: \`${run.command}\` (seed ${run.seed}, ${run.trials_per_cell} trials per cell, ` +
    `${run.iters.toLocaleString('en')} updates each), judged as the claims above are. ✓ holds, ✗ does not hold, ? not decided; ` +
    `the deeper the colour, the larger the margin. Outlined: the preset's own settings (${own}, σ = ${run.own_init_sigma}).`
  );
}

/** A cell's text: its verdict and the number the claim is judged by. */
export function cellText(holds: boolean | null, value: number | null): string {
  const mark = holds === null ? '?' : holds ? '✓' : '✗';
  if (value === null) return mark;
  const v = Math.abs(value) >= 100 ? Math.round(value).toLocaleString('en') : value.toFixed(3);
  return `${mark} ${v.replace('-', '−')}`;
}
