// The page's whole state in its URL hash, DOM-free. The format is readable and derived from the
// core's option schema (no option is named here):
//
//   #data=bas4&hidden=16&init=ucd&seed=1&every=100&exact_bits=20&axis=iter
//    &lane=cd:lr=0.1,k=1,chains=1000&lane=pcd:lr=0.1,k=1,chains=1000
//
// - `data`, `axis`, `stop` (absent: runs on) and `stop_unit=epochs` (absent: updates), `preset`
//   and `rate` (the preset's rate index), `trials` (trials per lane: a study; absent: single
//   runs), `scale=paper` (the preset at the paper's scale: its trials, length and AIS, as
//   `rbm reproduce NAME --scale paper`; absent: the page's) and `band=95` (the study's chart also draws the q2.5–q97.5 band). A link cannot carry a file from the user's computer:
//   a `data` the page does not have gives a notice and the first screen;
// - every shared option of the schema, by its key (empty: the core derives it, e.g. a drawn seed);
// - one `lane=ALGO:OPTIONS` per lane, in order (`lanes=0`: no lane). OPTIONS are `key=value`
//   pairs: `id` (when it is not the lane's position), `label` (a preset's), every main option
//   the algorithm reads that has a value, and each "more options" value away from its default;
// - each option of the lane panels' exact views (scope `view`, e.g. `grad_every=500`) away from
//   its default, after the lanes.
//
// - how the page is shown (classroom.ts, read by `decodeView`, ignored by `decodeState`):
//   `hide=` (parts hidden, comma-separated; TF Playground's `KEY_hide=true` is read too),
//   `embed=1` (the compact layout) and `tour=` (a guided tour to open). They come last.
//
// Every atom is percent-encoded, so a label may hold any character. Decoding starts from the
// first screen and applies every usable value; an unknown or malformed one is ignored with a
// notice (the caller shows it as text). Nothing decoded here is ever treated as HTML.

import type { Catalog, OptionEntry } from '../generated/core';
import { defaultValue, formatValue, laneOptions, optionSpec, parseOption, sharedOptions, viewOptions } from '../protocol/schema';
import type { Axis } from './chartData';
import { NO_VIEW, parseHide, type ViewFlags } from './classroom';
import { measuredByStudy, presetPlan } from './presets';
import { STOP_UNITS, type StopUnit } from './progress';
import { firstScreen, type LaneState, MAX_STOP, MAX_TRIALS, newLaneState, type PageState, trialsRefusal } from './state';

const AXES: Axis[] = ['iter', 'sweeps'];
const MAX_LABEL = 200;
const MAX_LANES = 64;
const MAX_ID = 1_000_000;
/** The longest hash the page reads (characters): 64 lanes with long labels fit well below it;
 * anything past it is cut at the last whole part before it, with a notice. */
export const MAX_HASH = 32_768;

/** The hash without its '#', cut to at most `MAX_HASH` characters at a part boundary ('&'),
 * and the notice that says so (null: not cut). */
function bounded(hash: string): { text: string; notice: string | null } {
  const text = hash.replace(/^#/, '');
  if (text.length <= MAX_HASH) return { text, notice: null };
  const cut = text.lastIndexOf('&', MAX_HASH);
  return {
    text: cut < 0 ? '' : text.slice(0, cut),
    notice: `The link is ${text.length} characters long, more than the ${MAX_HASH} the page reads: the part after the first ${cut < 0 ? 0 : cut} characters was ignored.`,
  };
}

const enc = encodeURIComponent;

/** The lane's `ALGO:OPTIONS` (not yet percent-encoded as a whole: every atom already is). */
function encodeLane(catalog: Catalog, lane: LaneState, position: number): string {
  const pairs: string[] = [];
  if (lane.id !== position) pairs.push(`id=${lane.id}`);
  if (lane.label !== null) pairs.push(`label=${enc(lane.label)}`);
  if (lane.aisEvery !== undefined && lane.aisEvery !== null) pairs.push(`ais_every=${lane.aisEvery}`);
  const { main, more } = laneOptions(catalog, lane.algo);
  for (const spec of main) {
    const v = lane.options[spec.key];
    if (v !== null && v !== undefined) pairs.push(`${spec.key}=${enc(formatValue(v))}`);
  }
  for (const spec of more) {
    const v = lane.options[spec.key] ?? null;
    if (v !== defaultValue(spec)) pairs.push(`${spec.key}=${enc(formatValue(v))}`);
  }
  return pairs.length ? `${enc(lane.algo)}:${pairs.join(',')}` : enc(lane.algo);
}

/** The hash (without '#') of a state, and of how the page shows it (`view`). */
export function encodeState(catalog: Catalog, s: PageState, view: ViewFlags = NO_VIEW): string {
  const parts = [`data=${enc(s.data)}`];
  for (const spec of sharedOptions(catalog)) parts.push(`${spec.key}=${enc(formatValue(s.shared[spec.key] ?? null))}`);
  parts.push(`axis=${s.axis}`);
  if (s.stop !== null) parts.push(`stop=${s.stop}`);
  if (s.stopUnit !== 'updates') parts.push(`stop_unit=${s.stopUnit}`);
  if (s.preset !== null) parts.push(`preset=${enc(s.preset)}`, `rate=${s.rate}`);
  if (s.preset !== null && s.scale === 'paper') parts.push('scale=paper');
  if (s.trials !== null) parts.push(`trials=${s.trials}`);
  if (s.wide) parts.push('band=95');
  if (s.compute !== 'auto') parts.push(`compute=${s.compute}`);
  if (s.lanes.length === 0) parts.push('lanes=0');
  s.lanes.forEach((lane, i) => {
    parts.push(`lane=${encodeLane(catalog, lane, i)}`);
  });
  // The lane panels' view options, when away from their defaults.
  for (const spec of viewOptions(catalog)) {
    const v = s.views[spec.key] ?? null;
    if (v !== defaultValue(spec)) parts.push(`${spec.key}=${enc(formatValue(v))}`);
  }
  if (view.hide !== null) parts.push(`hide=${view.hide.map(enc).join(',')}`);
  if (view.embed) parts.push('embed=1');
  if (view.tour !== null) parts.push(`tour=${enc(view.tour)}`);
  return parts.join('&');
}

/** The keys of how a page is shown: `decodeState` leaves them to `decodeView`. */
function isViewKey(key: string): boolean {
  return key === 'hide' || key === 'embed' || key === 'tour' || key.endsWith('_hide');
}

/**
 * How a hash shows the page: the parts it hides (`known`: the names a link may hide), the
 * embed layout and the tour to open (`tours`: the ids there are). A notice per ignored value.
 */
export function decodeView(hash: string, known: ReadonlySet<string>, tours: readonly string[]): { view: ViewFlags; notices: string[] } {
  const view: ViewFlags = { ...NO_VIEW };
  const notices: string[] = [];
  const hide = (keys: string[]) => {
    view.hide = [...(view.hide ?? []), ...keys.filter((k) => !view.hide?.includes(k))];
  };
  // decodeState gives the notice of a cut hash.
  for (const part of bounded(hash).text.split('&')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = decodeAtom(part.slice(0, eq));
    const value = decodeAtom(part.slice(eq + 1));
    if (key === null || value === null || !isViewKey(key)) continue;
    if (key === 'hide') {
      const p = parseHide(value, known);
      hide(p.hide);
      if (p.unknown.length) notices.push(`The link's hide=${shown(p.unknown.join(','))} was ignored: the page has no such part to hide.`);
    } else if (key === 'embed') {
      if (value === '1' || value === 'true') view.embed = true;
      else if (value !== '0' && value !== 'false') notices.push(`The link's embed=${shown(value)} was ignored: it is 1 or 0.`);
    } else if (key === 'tour') {
      if (tours.includes(value)) view.tour = value;
      else notices.push(`The link's tour=${shown(value)} was ignored: there is no such guided tour.`);
    } else {
      const name = key.slice(0, -'_hide'.length);
      if (!known.has(name)) notices.push(`The link's ${shown(key)} was ignored: the page has no part '${name}' to hide.`);
      else if (value === 'true' || value === '1') hide([name]);
      else if (value !== 'false' && value !== '0') notices.push(`The link's ${key}=${shown(value)} was ignored: it is true or false.`);
      else hide([]);
    }
  }
  return { view, notices };
}

export interface Decoded {
  state: PageState;
  /** One sentence per ignored value, for a visible notice. */
  notices: string[];
}

function decodeAtom(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/** A whole number in [min, max], or null. */
function wholeNumber(text: string, min: number, max: number): number | null {
  if (!/^\d+$/.test(text)) return null;
  const n = Number(text);
  return n >= min && n <= max ? n : null;
}

/** Shows a value from the URL in a notice: quoted, cut short. */
function shown(text: string): string {
  return `'${text.length > 40 ? `${text.slice(0, 40)}…` : text}'`;
}

function decodeLane(catalog: Catalog, raw: string, position: number, notices: string[]): LaneState | null {
  const colon = raw.indexOf(':');
  const algo = decodeAtom(colon < 0 ? raw : raw.slice(0, colon));
  if (algo === null || !catalog.algorithms.some((a) => a.name === algo)) {
    notices.push(`The lane ${shown(algo ?? raw)} was left out: no such algorithm.`);
    return null;
  }
  const lane = newLaneState(catalog, position, algo, {});
  const { main, more } = laneOptions(catalog, algo);
  const reads = new Map([...main, ...more].map((o) => [o.key, o]));
  const pairs = colon < 0 ? [] : raw.slice(colon + 1).split(',');
  for (const pair of pairs) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decodeAtom(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? null : decodeAtom(pair.slice(eq + 1));
    if (key === null || value === null) {
      notices.push(`A value of lane ${position + 1} (${algo}), ${shown(pair)}, was ignored: it is not a readable key=value pair.`);
      continue;
    }
    if (key === 'id') {
      const id = wholeNumber(value, 0, MAX_ID);
      if (id === null) notices.push(`The id of lane ${position + 1} (${algo}), ${shown(value)}, was ignored: it must be a whole number from 0 to ${MAX_ID}.`);
      else lane.id = id;
    } else if (key === 'label') {
      lane.label = value.slice(0, MAX_LABEL);
    } else if (key === 'ais_every') {
      const n = wholeNumber(value, 1, MAX_STOP);
      if (n === null)
        notices.push(
          `"AIS every" of lane ${position + 1} (${algo}), ${shown(value)}, was ignored: it must be a whole number of updates from 1 to ${MAX_STOP}.`,
        );
      else lane.aisEvery = n;
    } else if (reads.has(key)) {
      const p = parseOption(reads.get(key) as OptionEntry, value);
      if (p.ok) lane.options[key] = p.value;
      else notices.push(`A value of lane ${position + 1} (${algo}) was ignored: ${p.message}.`);
    } else {
      notices.push(`The option ${shown(key)} of lane ${position + 1} (${algo}) was ignored: ${algo} has no such option.`);
    }
  }
  return lane;
}

/** The state a hash describes (with or without its '#'), and a notice per ignored value. */
export function decodeState(catalog: Catalog, hash: string): Decoded {
  const { text, notice } = bounded(hash);
  const notices: string[] = notice === null ? [] : [notice];
  if (text === '') return { state: firstScreen(catalog), notices };
  const state = presetBase(catalog, text) ?? firstScreen(catalog);
  const lanes: LaneState[] = [];
  let noLanes = false;
  let noData = false;
  let rateText: string | null = null;
  let laneParts = 0; // every `lane=` part of the link, the ones left out included
  for (const part of text.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = decodeAtom(eq < 0 ? part : part.slice(0, eq));
    const raw = eq < 0 ? '' : part.slice(eq + 1);
    if (key === null || eq < 0) {
      notices.push(`The link's part ${shown(part)} was ignored: it is not a readable key=value pair.`);
      continue;
    }
    if (isViewKey(key)) continue;
    if (key === 'lane') {
      laneParts++;
      if (laneParts > MAX_LANES) continue; // one notice for all of them, below
      const lane = decodeLane(catalog, raw, lanes.length, notices);
      if (lane) lanes.push(lane);
      continue;
    }
    const value = decodeAtom(raw);
    if (value === null) {
      notices.push(`The link's value of ${shown(key)} was ignored: it is not readable text.`);
      continue;
    }
    const bad = (why: string) => notices.push(`The link's ${key}=${shown(value)} was ignored: ${why}.`);
    switch (key) {
      case 'data':
        if (catalog.data_sets.some((d) => d.name === value)) {
          state.data = value;
        } else {
          noData = true;
          notices.push(
            `The link's data=${shown(value)} was ignored: no such data set here (a file from your computer does not travel with a link: load it again with "Your own data"), so the page shows its first screen.`,
          );
        }
        break;
      case 'axis':
        if ((AXES as string[]).includes(value)) state.axis = value as Axis;
        else bad(`the axis is one of ${AXES.join(', ')}`);
        break;
      case 'stop': {
        const n = value === '' ? null : wholeNumber(value, 1, MAX_STOP);
        if (n === null && value !== '') bad(`stop at must be a whole number from 1 to ${MAX_STOP}`);
        else state.stop = n;
        break;
      }
      case 'stop_unit':
        if ((STOP_UNITS as string[]).includes(value)) state.stopUnit = value as StopUnit;
        else bad(`the end point's unit is one of ${STOP_UNITS.join(', ')}`);
        break;
      case 'preset':
        if (catalog.presets.some((p) => p.name === value)) state.preset = value;
        else bad('no such paper experiment');
        break;
      case 'rate':
        rateText = value;
        break;
      case 'scale':
        if (value === 'paper' || value === 'page') state.scale = value;
        else bad("the scale is paper (the paper's trials, length and AIS) or page");
        break;
      case 'trials': {
        const n = value === '' ? null : wholeNumber(value, 1, MAX_TRIALS);
        if (n === null && value !== '') bad(`trials must be a whole number from 1 to ${MAX_TRIALS}`);
        else state.trials = n;
        break;
      }
      case 'band':
        if (value === '95' || value === '80') state.wide = value === '95';
        else bad('the band is 80 (q10–q90) or 95 (also q2.5–q97.5)');
        break;
      case 'compute':
        if (value === 'gpu' || value === 'cpu' || value === 'auto') state.compute = value;
        else bad('compute is cpu (the wasm core), gpu (WebGPU) or auto (the GPU for MNIST-sized models where there is one)');
        break;
      case 'lanes':
        if (value === '0') noLanes = true;
        else bad("only 'lanes=0' (no lane) is understood");
        break;
      default: {
        const spec = optionSpec(catalog, key);
        if (spec?.scope !== 'shared' && spec?.scope !== 'view') {
          bad('the page has no such setting');
          break;
        }
        const p = parseOption(spec, value);
        if (!p.ok) bad(p.message);
        else if (spec.scope === 'view') state.views[key] = p.value;
        else state.shared[key] = p.value;
      }
    }
  }
  if (laneParts > MAX_LANES) {
    notices.push(
      `The link has ${laneParts} lanes, more than the ${MAX_LANES} the page runs: the ${laneParts - MAX_LANES} after the first ${MAX_LANES} were left out.`,
    );
  }
  if (rateText !== null) {
    const preset = catalog.presets.find((p) => p.name === state.preset);
    const r = preset ? wholeNumber(rateText, 0, preset.rates.length - 1) : null;
    if (r === null) notices.push(`The link's rate=${shown(rateText)} was ignored: it must index one of the learning rates of the paper experiment.`);
    else state.rate = r;
  }
  // Settings made for data the page does not have would not fit the default data: none apply.
  if (noData) return { state: firstScreen(catalog), notices };
  const named = catalog.presets.find((p) => p.name === state.preset);
  const measured = measuredByStudy(named) && named?.data === state.data;
  if (state.scale === 'paper' && !named?.paper_scale) state.scale = 'page';
  const refused =
    state.trials !== null
      ? trialsRefusal(
          catalog.data_sets.find((d) => d.name === state.data),
          measured,
        )
      : null;
  if (refused) {
    notices.push(`The link's trials=${state.trials} was ignored: ${refused}.`);
    state.trials = null;
  }
  // Lanes from the link when it has usable ones (or says it has none); else the first screen's.
  if (lanes.length > 0 || noLanes) state.lanes = uniqueIds(lanes, notices);
  return { state, notices };
}

/**
 * The state a link that names a paper experiment but no lanes starts from: the whole preset
 * (its data, settings, lanes, end point and trials, at the link's rate), as the picker sets it
 * up (issue 27: `#preset=ucd-bas4` alone kept the first screen's lanes under the UCD note).
 * The link's other values then apply on top. Null: the link lists lanes (or none) or names no
 * known preset.
 */
function presetBase(catalog: Catalog, text: string): PageState | null {
  const values = new Map<string, string>();
  for (const part of text.split('&')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = decodeAtom(part.slice(0, eq));
    const value = decodeAtom(part.slice(eq + 1));
    if (key === 'lane' || key === 'lanes') return null;
    if (key !== null && value !== null && (key === 'preset' || key === 'rate' || key === 'scale')) values.set(key, value);
  }
  const p = catalog.presets.find((x) => x.name === values.get('preset'));
  if (!p) return null;
  const rate = wholeNumber(values.get('rate') ?? '0', 0, p.rates.length - 1) ?? 0;
  const first = firstScreen(catalog);
  return presetPlan(p, catalog, rate, first.shared.seed ?? null, values.get('scale') === 'paper' ? 'paper' : 'page').state;
}

/** Gives a lane whose id another lane already has the next free id (above the largest; the
 * lowest free one when that would pass MAX_ID). */
function uniqueIds(lanes: LaneState[], notices: string[]): LaneState[] {
  const seen = new Set<number>();
  const taken = new Set(lanes.map((l) => l.id));
  let next = Math.max(-1, ...taken) + 1;
  for (const lane of lanes) {
    if (seen.has(lane.id)) {
      if (next > MAX_ID) next = 0;
      while (taken.has(next)) next++;
      notices.push(`Lane id ${lane.id} was used twice; the second lane now has id ${next}.`);
      lane.id = next;
      taken.add(next);
    }
    seen.add(lane.id);
  }
  return lanes;
}
