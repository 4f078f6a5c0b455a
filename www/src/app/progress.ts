// The arithmetic of long runs, DOM-free: epochs, rows per second, the end point in updates
// (it may be given in epochs) and the time left; and how the page writes these numbers.
import type { OptionValue } from '../protocol/schema';

/** How the end point is given: in parameter updates or in epochs (passes over the training rows). */
export type StopUnit = 'updates' | 'epochs';

export const STOP_UNITS: StopUnit[] = ['updates', 'epochs'];

/** Training rows per update: the lane's batch size, or the whole data set when it has none. */
export function batchRows(batch: OptionValue | undefined, rows: number): number {
  return typeof batch === 'number' && batch > 0 ? batch : rows;
}

/** Epochs done after `iter` updates of `batch` rows each (fractional). */
export function epochsDone(iter: number, batch: number, rows: number): number {
  return rows > 0 ? (iter * batch) / rows : 0;
}

/** Updates in one epoch, rounded (at least 1): "evaluate once per epoch". */
export function updatesPerEpoch(rows: number, batch: number): number {
  return Math.max(1, Math.round(rows / Math.max(1, batch)));
}

/** The end point in updates: `stop` as given, or `stop` epochs rounded up to whole updates. */
export function stopInUpdates(stop: number | null, unit: StopUnit, batch: number, rows: number): number | null {
  if (stop === null) return null;
  if (unit === 'updates') return stop;
  return Math.max(1, Math.ceil((stop * rows) / Math.max(1, batch)));
}

/** Rows per second at `rate` updates per second. */
export function rowsPerSecond(rate: number, batch: number): number {
  return rate > 0 ? rate * batch : 0;
}

/** Milliseconds until update `until` at `rate` updates per second (null: no end point or no rate yet). */
export function etaMs(iter: number, until: number | null, rate: number): number | null {
  if (until === null || !(rate > 0)) return null;
  return (1000 * Math.max(0, until - iter)) / rate;
}

/** A duration for people: "0.4 s", "42 s", "3 min 05 s", "2 h 07 min". */
export function formatDuration(ms: number): string {
  if (!(ms >= 0) || !Number.isFinite(ms)) return '–';
  const s = ms / 1000;
  if (s < 10) return `${s.toFixed(1)} s`;
  const whole = Math.round(s);
  if (whole < 60) return `${whole} s`;
  const min = Math.floor(whole / 60);
  if (min < 60) return `${min} min ${String(whole % 60).padStart(2, '0')} s`;
  return `${Math.floor(min / 60)} h ${String(min % 60).padStart(2, '0')} min`;
}

/** An epoch count: "0.25", "3.75", "15.4", "120". */
export function formatEpochs(e: number): string {
  if (!(e >= 0)) return '–';
  if (e < 10) return e.toFixed(2);
  if (e < 100) return e.toFixed(1);
  return e.toFixed(0);
}

/** A per-second figure with its unit: "512 updates/s", "21.5k rows/s", "1.2M rows/s". */
export function formatPerSecond(x: number, unit: string): string {
  if (!(x > 0)) return `– ${unit}/s`;
  if (x >= 1e6) return `${(x / 1e6).toFixed(1)}M ${unit}/s`;
  if (x >= 1000) return `${(x / 1000).toFixed(1)}k ${unit}/s`;
  return `${x >= 10 ? x.toFixed(0) : x.toPrecision(2)} ${unit}/s`;
}

/** What a lane's progress line says about its pace (every part optional). */
export interface Pace {
  iter: number;
  /** Updates per second (0: none measured). */
  rate: number;
  /** Milliseconds spent training. */
  elapsed: number;
  batch: number;
  rows: number;
  /** The lane's end point in updates (null: none). */
  until: number | null;
  running: boolean;
  /** A lane whose exact points are evaluated by the page's pool (training waits for each): its
   * records' spacing, the time it waited per point so far and the points measured (none:
   * training alone sets the ETA). */
  exactWait?: { every: number; ms: number; points: number; waiting: boolean };
}

/** The ETA of a lane that waits for deferred exact points: training's time left plus, per
 * point still to come, its mean wait so far; null while no point is in (the wait is unknown). */
export function etaWithPoints(p: Pace): number | null {
  const train = etaMs(p.iter, p.until, p.rate);
  const w = p.exactWait;
  if (!w || train === null || p.until === null) return train;
  const left = Math.max(0, Math.floor(p.until / w.every) - Math.floor(p.iter / w.every)) + (w.waiting ? 1 : 0);
  if (left === 0) return train;
  if (w.points === 0) return null;
  return train + (left * w.ms) / w.points;
}

/** The parts of a lane's progress line: epoch, updates/s and rows/s, time spent, time left. */
export function paceParts(p: Pace): string[] {
  const parts = [`epoch ${formatEpochs(epochsDone(p.iter, p.batch, p.rows))}`];
  if (p.running || p.rate > 0) parts.push(formatPerSecond(p.rate, 'updates'), formatPerSecond(rowsPerSecond(p.rate, p.batch), 'rows'));
  if (p.elapsed > 0) parts.push(`elapsed ${formatDuration(p.elapsed)}`);
  const eta = p.running ? etaWithPoints(p) : null;
  if (eta !== null) parts.push(`ETA ${formatDuration(eta)}`);
  else if (p.running && p.until !== null && p.exactWait) parts.push('ETA once its first exact point is in');
  return parts;
}

/** Why Start moves nothing (null: some lane can train): every lane stands at its end point. */
export function stuckAtStop(lanes: { iter: number; until: number | null }[]): string | null {
  if (!lanes.length || !lanes.every((l) => l.until !== null && l.iter >= l.until)) return null;
  const at = [...new Set(lanes.map((l) => l.iter.toLocaleString('en')))].join(', ');
  return `Nothing moves: every lane has reached "stop at" (update ${at}). Raise or clear "stop at" to train on, or Reset to start again.`;
}
