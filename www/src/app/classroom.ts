// Classroom links, DOM-free: which parts of the page a link hides, the compact embed layout and
// the tour a link opens. The parts are derived, never listed by hand where the page already
// declares them: every shared option of the core's schema (the settings area), every per-lane
// option (its row in each lane's options), every lane panel (panels/index.ts), and the page's
// own controls and sections below. An element carries its part name in `data-part` (a
// space-separated list); a hidden part is one CSS rule, so lane cards made later hide too.
//
// In the URL (urlState.ts, after the experiment's state):
//   hide=lr,seed,filters   the parts hidden (TF Playground's `lr_hide=true` is read too)
//   embed=1                the compact layout: a small header, chart, lanes, Start/Pause/Reset
//   tour=ucd-bas4          opens that guided tour
import type { Catalog } from '../generated/core';
import { laneOptions, sharedOptions, viewOptions } from '../protocol/schema';

/** How a link shows the page (beside the experiment's state). */
export interface ViewFlags {
  /** The parts hidden; null: the link says nothing (embed then hides its default parts). */
  hide: string[] | null;
  /** The compact layout for an iframe. */
  embed: boolean;
  /** A guided tour to open (its id), or null. */
  tour: string | null;
}

export const NO_VIEW: ViewFlags = { hide: null, embed: false, tour: null };

export type PartGroup = 'run' | 'settings' | 'lane options' | 'panels' | 'page';

/** A part of the page a link can hide. */
export interface Part {
  key: string;
  label: string;
  group: PartGroup;
}

/** A lane panel as the classroom sees it (panels/index.ts gives the list). */
export interface PanelName {
  name: string;
  title?: string;
}

/** The page's own controls (not options of the core), in the order the page shows them. */
const RUN_PARTS: Part[] = [
  { key: 'run', label: 'Start / Pause', group: 'run' },
  { key: 'reset', label: 'Reset', group: 'run' },
];
const PAGE_CONTROLS: Part[] = [
  { key: 'preset', label: 'Paper experiments', group: 'settings' },
  { key: 'trials', label: 'Trials per lane', group: 'settings' },
  { key: 'data', label: 'Data set (and your own files)', group: 'settings' },
];
const LATE_CONTROLS: Part[] = [
  { key: 'stop', label: 'Stop at', group: 'settings' },
  { key: 'add', label: 'Add a lane', group: 'settings' },
  { key: 'remove', label: 'Remove a lane', group: 'settings' },
  { key: 'axis', label: 'x axis: updates or Gibbs sweeps', group: 'settings' },
];
const PAGE_SECTIONS: Part[] = [
  { key: 'intro', label: 'What happens, above the buttons', group: 'page' },
  { key: 'share', label: 'Share button', group: 'page' },
  { key: 'tours', label: 'Guided tours', group: 'page' },
  { key: 'glossary', label: 'Glossary button', group: 'page' },
  { key: 'explain', label: 'Explanation under the chart', group: 'page' },
  { key: 'claim-maps', label: "Where the paper's claims hold (explorer maps)", group: 'page' },
  { key: 'about', label: 'What you are looking at', group: 'page' },
  { key: 'samplers', label: 'Sampling a trained MNIST model', group: 'page' },
];

/** The lane panel whose rows are the lane options: hidden through them, not listed itself. */
const OPTIONS_PANEL = 'options';

/** A part name is safe in a CSS attribute selector and in the URL as it is. */
const PART_NAME = /^[a-z0-9][a-z0-9_-]*$/;

/** A lane panel's part name: its name, or `NAME-view` when an option has that key (the
 * "chains" panel beside the "chains" option). */
export function panelPart(catalog: Catalog, name: string): string {
  return catalog.options.some((o) => o.key === name) ? `${name}-view` : name;
}

/** Every part a link can hide, grouped: run, settings, lane options, panels, page. */
export function parts(catalog: Catalog, panels: readonly PanelName[]): Part[] {
  const shared = sharedOptions(catalog).map((o): Part => ({ key: o.key, label: capital(o.label), group: 'settings' }));
  const seen = new Set<string>();
  const lane: Part[] = [];
  for (const o of catalog.options) {
    if (o.scope !== 'lane' || seen.has(o.key)) continue;
    seen.add(o.key);
    lane.push({ key: o.key, label: capital(o.label), group: 'lane options' });
  }
  const panelParts = panels
    .filter((p) => p.name !== OPTIONS_PANEL)
    .map((p): Part => ({ key: panelPart(catalog, p.name), label: capital(p.title ?? p.name), group: 'panels' }));
  // The panels' view options (e.g. the gradient error's interval) with the panels.
  const views = viewOptions(catalog).map((o): Part => ({ key: o.key, label: capital(o.label), group: 'panels' }));
  const all = [...RUN_PARTS, ...PAGE_CONTROLS, ...shared, ...LATE_CONTROLS, ...lane, ...panelParts, ...views, ...PAGE_SECTIONS];
  return all.filter((p) => PART_NAME.test(p.key));
}

/** "Learning rate η" from "learning rate η" (a Greek symbol stays as it is: η is not H). */
function capital(s: string): string {
  return /^[a-z]/.test(s) ? s.charAt(0).toUpperCase() + s.slice(1) : s;
}

/** Lane panels that are tools rather than views (students change something with them, or they
 * compute on request or every so often): an embed leaves them out, and the Share dialog counts
 * them among the controls. */
export const TOOL_PANELS = ['ais', 'download', 'slowmo', 'chain-time', 'grad-error', 'mixing'];

/**
 * What `embed=1` hides when the link does not list its parts: every control but Start, Pause
 * and Reset (settings, lane options, the page's tools and texts) and the panels that are tools.
 */
export function embedHidden(catalog: Catalog, panels: readonly PanelName[]): string[] {
  const tools = new Set(TOOL_PANELS.map((n) => panelPart(catalog, n)));
  return parts(catalog, panels)
    .filter((p) => (p.group === 'panels' ? tools.has(p.key) : p.key !== 'run' && p.key !== 'reset'))
    .map((p) => p.key);
}

/** The parts hidden on a page with these flags. */
export function hiddenParts(view: ViewFlags, catalog: Catalog, panels: readonly PanelName[]): Set<string> {
  if (view.hide !== null) return new Set(view.hide);
  return new Set(view.embed ? embedHidden(catalog, panels) : []);
}

/** The part names of a `hide=` value, and the ones that are not parts (for a notice). */
export function parseHide(value: string, known: ReadonlySet<string>): { hide: string[]; unknown: string[] } {
  const hide: string[] = [];
  const unknown: string[] = [];
  for (const raw of value.split(',')) {
    const key = raw.trim();
    if (key === '') continue;
    if (known.has(key)) {
      if (!hide.includes(key)) hide.push(key);
    } else unknown.push(key);
  }
  return { hide, unknown };
}

const rule = (selectors: string[]) => (selectors.length ? `${selectors.join(',\n')} { display: none !important; }\n` : '');

/**
 * The style sheet that hides `hidden`: one selector per part, plus the containers left empty
 * (the settings area, a lane's options or its "more options", the whole controls area).
 */
export function hiddenCss(hidden: ReadonlySet<string>, catalog: Catalog): string {
  const sel: string[] = [];
  for (const key of hidden) if (PART_NAME.test(key)) sel.push(`[data-part~="${key}"]`);
  const all = (keys: string[]) => keys.every((k) => hidden.has(k));
  const settingKeys = ['data', ...sharedOptions(catalog).map((o) => o.key), 'stop'];
  if (all(settingKeys)) sel.push('#settings');
  for (const a of catalog.algorithms) {
    const { main, more } = laneOptions(catalog, a.name);
    if (!PART_NAME.test(a.name)) continue;
    if (all([...main, ...more].map((o) => o.key))) sel.push(`.lane[data-algo="${a.name}"] .panel-options`);
    else if (more.length && all(more.map((o) => o.key))) sel.push(`.lane[data-algo="${a.name}"] .more-options`);
  }
  if (all(['run', 'reset', 'preset', 'add', ...settingKeys])) sel.push('#controls');
  else if (all(['run', 'reset'])) sel.push('.buttons');
  return rule(sel);
}

/** The page's address without its hash (the link's base). */
export function pageBase(href: string): string {
  const i = href.indexOf('#');
  return i < 0 ? href : href.slice(0, i);
}

/** An HTML attribute value, escaped. */
function attr(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The `<iframe>` snippet of a link (the link should carry `embed=1`): 800×500, no border. */
export function iframeSnippet(url: string, title: string): string {
  return `<iframe src="${attr(url)}" width="800" height="500" style="border:0;max-width:100%" title="${attr(title)}" loading="lazy"></iframe>`;
}
