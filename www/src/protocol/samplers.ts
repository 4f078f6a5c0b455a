// Messages between the page and the sampler view's worker (workers/samplerWorker.ts).
import type { IslPoint, SamplerConfig, SamplerSlice, SelfTest } from '../generated/core';

export type ToSamplerWorker =
  /** Start (or restart) a run; replaces any run under way. `every`: samples per slice (one
   * strip image per slice); `limit`: samples per sampler before the run ends. */
  | {
      type: 'start';
      gen: number;
      modelUrl: string;
      assetUrl: string;
      configs: Partial<SamplerConfig>[];
      seed: number;
      every: number;
      limit: number;
    }
  | { type: 'stop'; gen: number }
  /** The no-drift self-test on a small enumerable model; independent of any run. */
  | { type: 'selftest'; id: number; configs: Partial<SamplerConfig>[]; chains: number; seed: number };

export type FromSamplerWorker =
  | { type: 'selftest'; id: number; results: SelfTest[] | null; error: string | null }
  | { type: 'status'; gen: number; status: 'loading' | 'running' | 'done' | 'error'; message: string }
  | { type: 'reference'; gen: number; points: IslPoint[] }
  | {
      type: 'slice';
      gen: number;
      row: number;
      slice: SamplerSlice & { grey: Float32Array; binary: Float32Array };
      /** Time this sampler has spent so far, in seconds. */
      seconds: number;
    };
