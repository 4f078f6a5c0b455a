// The papers' claims as the page lists them, DOM-free: each preset's statements (data of the
// core's preset table), their verdicts on the current bands (the core's `evaluateClaims`, the
// same evaluation `rbm reproduce` prints), and what the page says about them — including that
// a verdict on a single trial describes that trial, while the papers speak of medians.
import type { LaneBand, PresetEntry, Status, Verdict } from '../generated/core';

export interface ClaimRow {
  text: string;
  status: Status;
  /** "holds", "does not hold", "not decided yet". */
  words: string;
  /** A mark for the eye: ✓, ✗ or …. */
  mark: string;
  detail: string;
}

export const STATUS_WORDS: Record<Status, string> = { holds: 'holds', fails: 'does not hold', undecided: 'not decided yet' };
const MARKS: Record<Status, string> = { holds: '✓', fails: '✗', undecided: '…' };

/** Where the page stands on a preset's claims. */
export interface ClaimsContext {
  /** Whether the page runs this preset as a study (the small sets). */
  studies: boolean;
  /** Whether a study has started (its verdicts are in `verdicts`). */
  started: boolean;
  /** The learning rate the page runs at. */
  lr: number;
  /** Whether the lanes bracket their log-likelihood by AIS on a schedule (the verdicts are of
   * those brackets, one live run per lane). */
  brackets?: boolean;
}

/** The rows of the claims list: every claim of the preset at the page's rate. */
export function claimRows(p: PresetEntry, verdicts: Verdict[] | null, ctx: ClaimsContext): ClaimRow[] {
  const claims = p.claims.filter((c) => c.rates.length === 0 || c.rates.includes(ctx.lr));
  return claims.map((c, i) => {
    const v = verdicts?.[i];
    if (v && v.claim === c.text) return { text: c.text, status: v.status, words: STATUS_WORDS[v.status], mark: MARKS[v.status], detail: v.detail };
    const detail = ctx.brackets
      ? "waiting for the lanes' AIS brackets to reach the last update"
      : !ctx.studies
        ? `the page runs this experiment as one live run per lane; \`rbm reproduce ${p.name}\` checks it on ${p.trials} trial${p.trials === 1 ? '' : 's'}`
        : ctx.started
          ? 'waiting for the trials'
          : 'start the trials to check it';
    return { text: c.text, status: 'undecided', words: STATUS_WORDS.undecided, mark: MARKS.undecided, detail };
  });
}

/** The sentence above the claims: how many trials the verdicts are of, and what that means. */
export function claimsNote(p: PresetEntry, verdicts: Verdict[] | null, runs: number | null): string {
  const decided = (verdicts ?? []).filter((v) => v.status !== 'undecided');
  const fewest = decided.length ? Math.min(...decided.map((v) => v.trials)) : null;
  const paper = `The paper's statements are about medians over many trials (${p.paper}; \`rbm reproduce\` runs ${p.trials}).`;
  if (fewest === null) {
    return runs === null
      ? `${paper} Each is checked on the medians of the trials once they reach the last update.`
      : `${paper} Each is checked on the medians of the ${runs} trials per lane once they reach the last update.`;
  }
  if (fewest === 1)
    return `These verdicts describe one trial per lane, not a median: the paper's statements are about medians over many trials (${p.paper}). Run more trials to check them.`;
  const of = runs !== null && fewest < runs ? `${fewest} of ${runs} trials per lane so far` : `${fewest} trials per lane`;
  return `Checked on the medians of ${of}, as \`rbm reproduce ${p.name}\` checks them.`;
}

/** The lanes' AIS brackets (their "AIS every N updates") as the claims read a study's bands:
 * one trial per lane, the AIS estimate at each bracketed update as its "median". The claims of
 * a preset measured by AIS (e.g. sdcp-mnist) are then judged on the live run, as `rbm
 * reproduce` judges them on its trials' AIS checkpoints. Lanes without a bracket are left out. */
export function bracketBands(
  lanes: readonly { label: string | null; algo: string; brackets: readonly { iter: number; ais: { atll: number } }[] }[],
): LaneBand[] {
  return lanes
    .filter((l) => l.brackets.length > 0)
    .map((l) => ({ label: l.label ?? l.algo, trials: 1, points: l.brackets.map((b) => ({ iter: b.iter, median: b.ais.atll, stats: {} })) }));
}
