// The first screen's two sentences, DOM-free: what pressing Start will do and what to look
// for, for the page's state — the first screen's race, a paper's experiment (its own line of
// what the paper found), or any other set-up.
import type { Catalog } from '../generated/core';
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
    return (
      'Press Start: CD-1 and PCD train the same RBM on the 32 rows of Bars & Stripes 4×4, and the chart plots the exact average log-likelihood of each (higher is better; the dashed line is the best possible). ' +
      'Both climb for about 2 500 updates, then CD-1 falls back further and further while PCD stays near the bound: that is expected, not a bug — CD-1’s one-sweep chains, restarted at the data, give a biased gradient.'
    );
  }
  if (ds && dataFamily(ds) === 'images') {
    return `Press Start: ${who} train on ${ds.description}; their weight filters, samples and reconstructions show what each model learns. The exact curve needs a small model (hidden units ≤ 20); the AIS button of each lane estimates the log-likelihood instead.`;
  }
  return `Press Start: ${who} train the same RBM${ds ? ` on ${ds.description}` : ''}, and the chart plots each lane's exact average log-likelihood. Look for which curve comes closest to the dashed bound, and whether one falls back as it trains.`;
}
