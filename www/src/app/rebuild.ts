// Live edits and rebuilds (issue 10): an option the core's schema marks `live` (the learning
// rate, its decay, weight decay, momentum) reaches a running lane at its next update; any other
// edit rebuilds the lane and starts its curve again, so on a long run the page asks first.
import type { OptionEntry } from '../generated/core';

/** Training time (milliseconds of a lane's worker) from which wiping a run asks first: a few
 * seconds of training are cheaper to redo than a question. */
export const LONG_RUN_MS = 10_000;

/** What the question needs of a lane. */
export interface RunOf {
  id: number;
  algo: string;
  iter: number;
  elapsed: number;
}

/** Whether an edit of `spec` reaches a built lane without a rebuild. */
export function isLive(spec: Pick<OptionEntry, 'live'> | undefined): boolean {
  return spec?.live === true;
}

/** The runs an edit would wipe that are long enough to ask about. */
export function longRuns<T extends RunOf>(lanes: T[]): T[] {
  return lanes.filter((l) => l.elapsed >= LONG_RUN_MS && l.iter > 0);
}

/** The question before `what` wipes `runs` (null: nothing worth asking about). */
export function wipeQuestion(what: string, runs: RunOf[]): string | null {
  if (!runs.length) return null;
  const list = runs.map((r) => `lane ${r.id} (${r.algo}) (${r.iter.toLocaleString('en')} updates)`).join(', ');
  const them = runs.length === 1 ? 'its curve starts' : 'their curves start';
  return `${what} rebuilds ${list}: ${them} again from update 0. Continue?`;
}
