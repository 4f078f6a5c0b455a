// The first screen's two sentences, DOM-free: what pressing Start will do and what to look
// for, for the page's state — the first screen's race, a paper's experiment (its own line of
// what the paper reports, attributed to the paper), or any other set-up — and the line of what
// this run or study shows, written from its measurements (the lanes' curves, the claims'
// verdicts) and rewritten as they change. Static text never states an outcome as the page's own.
import type { Catalog, Verdict } from '../generated/core';
import { algoEntry } from '../protocol/schema';
import { plotsWhat, presetTitle } from './presets';
import { dataFamily, FIRST_SCREEN, type PageState } from './state';

function names(catalog: Catalog, s: PageState): string {
  const list = s.lanes.map((l) => l.label ?? algoEntry(catalog, l.algo)?.title ?? l.algo);
  if (list.length <= 1) return list.join('');
  return `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`;
}

/** Two sentences (or a paper's line) about what Start will do and what to look for. */
export function introText(catalog: Catalog, s: PageState): string {
  const ds = catalog.data_sets.find((d) => d.name === s.data);
  if (s.lanes.length === 0) return 'There is no lane yet: add one below (“Add a lane”), then press Start.';
  const who = names(catalog, s);
  const preset = catalog.presets.find((p) => p.name === s.preset);
  // A paper's experiment: its finding's first sentence (the whole line is under the picker).
  if (preset) {
    const finding = preset.expect.match(/^.*?[.!?](?=\s|$)/)?.[0] ?? preset.expect;
    return `Press Start: ${who} race on ${presetTitle(preset)
      .replace(/^[^,]*, /, '')
      .replace(/, [^,]*log-likelihood[^,]*$/, '')}, and the chart plots ${plotsWhat(preset)}. ${finding}`;
  }
  const first =
    s.data === FIRST_SCREEN.data &&
    s.lanes.length === 2 &&
    s.lanes[0].algo === 'cd' &&
    s.lanes[0].options.k === 1 &&
    s.lanes[1].algo === 'pcd' &&
    s.lanes.every((l) => l.options.lr === 0.1);
  if (first) {
    // No prediction of this run's curves (issue 27: the page said "PCD stays near the bound"
    // while its PCD fell to −14): the paper's word, attributed, and the line below the buttons
    // says what this run shows (runFindings), from its numbers.
    return (
      'Press Start: CD-1 and PCD train the same RBM on the 32 rows of Bars & Stripes 4×4, and the chart plots the exact average log-likelihood of each (higher is better; the dashed line is the best possible). ' +
      'The UCD paper reports that CD-1’s log-likelihood rises, then falls back as training goes on (its one-sweep chains, restarted at the data, give a biased gradient): watch whether it does here.'
    );
  }
  if (ds && dataFamily(ds) === 'images') {
    return `Press Start: ${who} train on ${ds.description}; their weight filters, samples and reconstructions show what each model learns. The exact curve needs a small model (hidden units ≤ 20); the AIS button of each lane estimates the log-likelihood instead.`;
  }
  return `Press Start: ${who} train the same RBM${ds ? ` on ${ds.description}` : ''}, and the chart plots each lane's exact average log-likelihood. Look for which curve comes closest to the dashed bound, and whether one falls back as it trains.`;
}

/** A lane's curve as the findings read it. */
export interface FindingLane {
  label: string;
  iter: number[];
  atll: number[];
}

/** What the claims' verdicts say, in counts. */
export interface FindingVerdicts {
  holds: number;
  fails: number;
  undecided: number;
  /** Trials per lane the decided verdicts are of (the fewest). */
  trials: number | null;
}

/** A log-likelihood for the line: three decimals, a real minus sign. */
function nats(x: number): string {
  return x.toFixed(3).replace('-', '−');
}

/**
 * What this run shows so far, from its numbers: for a live run, each lane's latest
 * log-likelihood and, where it has fallen back from its best, where the best was; for a study,
 * how many of the paper's statements hold on its medians. Empty before any measurement.
 */
export function runFindings(lanes: FindingLane[], verdicts: FindingVerdicts | null): string {
  if (verdicts) {
    const decided = verdicts.holds + verdicts.fails;
    const total = decided + verdicts.undecided;
    if (total === 0) return '';
    if (decided === 0) return `This study: none of the paper's ${total} statements is decided yet (the list under the chart).`;
    const of = verdicts.trials === null ? '' : ` on the medians of ${verdicts.trials} trial${verdicts.trials === 1 ? '' : 's'} per lane`;
    const left = verdicts.undecided ? `, ${verdicts.undecided} not decided yet` : '';
    return `This study${of}: ${verdicts.holds} of the paper's ${total} statements hold${verdicts.holds === 1 ? 's' : ''}, ${verdicts.fails} do${verdicts.fails === 1 ? 'es' : ''} not${left} (the list under the chart).`;
  }
  const parts: string[] = [];
  for (const l of lanes) {
    const n = l.iter.length;
    if (n < 2) continue;
    let best = 0;
    for (let i = 1; i < n; i++) if (l.atll[i] > l.atll[best]) best = i;
    const now = `${l.label} reads ${nats(l.atll[n - 1])} at update ${l.iter[n - 1].toLocaleString('en')}`;
    const drop = l.atll[best] - l.atll[n - 1];
    parts.push(
      best < n - 1 && drop > 0
        ? `${now}, ${nats(drop)} below its best (${nats(l.atll[best])} at update ${l.iter[best].toLocaleString('en')})`
        : `${now}, its best so far`,
    );
  }
  return parts.length ? `This run so far: ${parts.join('; ')}.` : '';
}

/** The verdicts in counts (the decided ones' fewest trials). */
export function verdictCounts(verdicts: Verdict[]): FindingVerdicts {
  const decided = verdicts.filter((v) => v.status !== 'undecided');
  return {
    holds: verdicts.filter((v) => v.status === 'holds').length,
    fails: verdicts.filter((v) => v.status === 'fails').length,
    undecided: verdicts.length - decided.length,
    trials: decided.length ? Math.min(...decided.map((v) => v.trials)) : null,
  };
}
