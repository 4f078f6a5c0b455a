// Messages between the page and the sampler view's worker (workers/samplerWorker.ts).
import type { IslPoint, SamplerConfig, SamplerSlice, SelfTest } from '../generated/core';

export type ToSamplerWorker =
  /** Start (or restart) a run; replaces any run under way. `every`: samples per slice (one
   * strip image per slice); `limit`: samples per sampler before the run ends; `compute`: where
   * the samplers run (the GPU: through the GPU core, www/pkg-gpu, loaded only then; where it
   * cannot, on the CPU, saying why). */
  | {
      type: 'start';
      compute: 'cpu' | 'gpu';
      gen: number;
      modelUrl: string;
      assetUrl: string;
      configs: Partial<SamplerConfig>[];
      seed: number;
      every: number;
      limit: number;
    }
  | { type: 'stop'; gen: number }
  /** Destroys the run's GPU, as a driver reset would (tests of the way back to the CPU). */
  | { type: 'loseGpu'; gen: number }
  /** The no-drift self-test on a small enumerable model; independent of any run. */
  | { type: 'selftest'; id: number; configs: Partial<SamplerConfig>[]; chains: number; seed: number };

export type FromSamplerWorker =
  | { type: 'selftest'; id: number; results: SelfTest[] | null; error: string | null }
  | { type: 'status'; gen: number; status: 'loading' | 'running' | 'done' | 'error'; message: string }
  | { type: 'reference'; gen: number; points: IslPoint[] }
  /** Where the samples of the slices that follow come from: the GPU adapter's name, or null for
   * the CPU; `message` says why a run asked for the GPU is on the CPU ('' otherwise). The
   * slices before it are dropped: the run starts again from its first sample. */
  | { type: 'device'; gen: number; gpu: string | null; message: string }
  | {
      type: 'slice';
      gen: number;
      row: number;
      slice: SamplerSlice & { grey: Float32Array; binary: Float32Array };
      /** Time this sampler has spent so far, in seconds. */
      seconds: number;
    };
