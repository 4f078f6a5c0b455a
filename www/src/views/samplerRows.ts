// What the sampler view keeps of each sampler (DOM-free, unit-tested): the last few strip
// images, the recent class sequence, the ISL curve and the throughput; and the samplers'
// configurations read from their option inputs.
import type { IslPoint, Mixing, SamplerConfig, SamplerEntry } from '../generated/core';
import { parseOption } from '../protocol/schema';

/** Strip images kept per sampler. */
export const STRIP_LENGTH = 12;
/** Classes kept per sampler for the class strip. */
export const CLASS_HISTORY = 400;

export interface SamplerRowState {
  strip: Float32Array[];
  classes: number[];
  isl: IslPoint[];
  mixing: Mixing | null;
  emitted: number;
  seconds: number;
}

export function emptyRow(): SamplerRowState {
  return { strip: [], classes: [], isl: [], mixing: null, emitted: 0, seconds: 0 };
}

/** Adds a slice: its image to the strip, its classes to the history, its ISL points. */
export function addSlice(
  row: SamplerRowState,
  s: { image: Float32Array; classes: ArrayLike<number>; isl: IslPoint[]; mixing: Mixing; emitted: number; seconds: number },
): void {
  row.strip.push(s.image);
  if (row.strip.length > STRIP_LENGTH) row.strip.splice(0, row.strip.length - STRIP_LENGTH);
  for (let i = 0; i < s.classes.length; i++) row.classes.push(s.classes[i]);
  if (row.classes.length > CLASS_HISTORY) row.classes.splice(0, row.classes.length - CLASS_HISTORY);
  row.isl.push(...s.isl);
  row.mixing = s.mixing;
  row.emitted = s.emitted;
  row.seconds = s.seconds;
}

/** Samples per second, or null before any time was spent. */
export function samplesPerSecond(row: SamplerRowState): number | null {
  return row.seconds > 0 ? row.emitted / row.seconds : null;
}

/** One colour per digit class (a qualitative palette readable on white). */
export const CLASS_COLOURS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

/** The ISL curves as uPlot columns over the union of their N (null where a curve has no point). */
export function islColumns(curves: IslPoint[][], reference: IslPoint[]): (number | null)[][] {
  const xs = [...new Set([...curves.flat(), ...reference].map((p) => p.n))].sort((a, b) => a - b);
  const col = (pts: IslPoint[]) => {
    const by = new Map(pts.map((p) => [p.n, p.isl]));
    return xs.map((x) => by.get(x) ?? null);
  };
  return [xs, ...curves.map(col), col(reference)];
}

/** The samplers' configurations from the text of their option inputs (`text(sampler, key)`;
 * undefined: the view has no input for it; empty: the sampler's own value), each read as a lane's
 * input is read (`parseOption` against the option's declaration), and the refusal of every
 * refused input by `sampler.key`. */
export function samplerConfigs(
  samplers: SamplerEntry[],
  text: (sampler: string, key: string) => string | undefined,
): { configs: Partial<SamplerConfig>[]; refused: Map<string, string> } {
  const refused = new Map<string, string>();
  const configs = samplers.map((s) => {
    const c: Record<string, unknown> = { sampler: s.name };
    for (const spec of s.options) {
      const t = text(s.name, spec.key)?.trim();
      if (!t) continue; // no input, or empty: the sampler's own value
      const p = parseOption(spec, t);
      if (!p.ok) refused.set(`${s.name}.${spec.key}`, p.message);
      else c[spec.key] = p.value;
    }
    return c as Partial<SamplerConfig>;
  });
  return { configs, refused };
}

/** Where the sampler view's samplers run: the user's `choice`, or — none made — the GPU where
 * the browser offers an adapter (`adapter`: its name), as lanes of MNIST-sized models do; the
 * view's models are MNIST's 784 visible units. The GPU is never chosen without an adapter. */
export function samplersOn(choice: 'cpu' | 'gpu' | null, adapter: string | null): 'cpu' | 'gpu' {
  if (adapter === null) return 'cpu';
  return choice ?? 'gpu';
}

/** What the view says of where its samples come from: `gpu` the adapter's name, null the CPU. */
export function deviceLabel(gpu: string | null): string {
  return gpu === null ? 'CPU (wasm)' : `GPU (WebGPU: ${gpu})`;
}

/** Why a run asked for the GPU runs on the CPU: the GPU refused (`started` false: it could not
 * be opened, or a limit was refused) or stopped during the run (`started`: the run starts again
 * from its first sample). */
export function gpuFallbackMessage(why: string, started: boolean): string {
  const reason = why.trim().replace(/\.$/, '') || 'no reason given';
  return started ? `The GPU stopped (${reason}): the samplers start again on the CPU.` : `The GPU could not run the samplers (${reason}): they run on the CPU.`;
}
