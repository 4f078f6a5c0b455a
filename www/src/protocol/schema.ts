// The core's option schema (catalog().options) as the page uses it: which inputs the settings
// area and each lane show, how their text is read and checked, and how values are written
// back. Nothing here knows an option by name: a new option of the core gets its input, its
// checks and its place in the URL by itself (its `advanced` flag puts it under "more options").
import type { AlgoEntry, Catalog, OptionEntry, OptionSpec } from '../generated/core';

/** An option's value in the page's state: `null` is "the core derives it" (a derived default). */
export type OptionValue = number | string | null;

/** The options shared by every lane (the settings area), in the schema's order. */
export function sharedOptions(catalog: Catalog): OptionEntry[] {
  return catalog.options.filter((o) => o.scope === 'shared');
}

/** The options of the page's exact views of a lane's model (scope `view`: one value for the
 * page, never part of a lane's configuration), in the schema's order. */
export function viewOptions(catalog: Catalog): OptionEntry[] {
  return catalog.options.filter((o) => o.scope === 'view');
}

export function optionSpec(catalog: Catalog, key: string): OptionEntry | undefined {
  return catalog.options.find((o) => o.key === key);
}

export function algoEntry(catalog: Catalog, name: string): AlgoEntry | undefined {
  return catalog.algorithms.find((a) => a.name === name);
}

/** The per-lane options an algorithm reads: the main ones and the `advanced` ones ("more
 * options"). */
export function laneOptions(catalog: Catalog, algo: string): { main: OptionEntry[]; more: OptionEntry[] } {
  const reads = catalog.options.filter((o) => o.scope === 'lane' && o.algos.includes(algo));
  const isMain = (o: OptionEntry) => !o.advanced;
  return { main: reads.filter(isMain), more: reads.filter((o) => !isMain(o)) };
}

/** The keys of every per-lane option an algorithm reads (main, then more). */
export function laneOptionKeys(catalog: Catalog, algo: string): string[] {
  const { main, more } = laneOptions(catalog, algo);
  return [...main, ...more].map((o) => o.key);
}

/** The schema's default (`null` when the core derives it). */
export function defaultValue(spec: OptionSpec): OptionValue {
  return spec.default.type === 'derived' ? null : spec.default.value;
}

/** Whether an empty input is valid (the core then derives the value). */
export function isOptional(spec: OptionSpec): boolean {
  return spec.default.type === 'derived';
}

/** A range's end in words: huge ends (e.g. the largest f32) short, as "3.4e38". */
function bound(x: number): string {
  return Math.abs(x) >= 1e15 ? Number(x.toPrecision(3)).toExponential().replace('e+', 'e') : String(x);
}

/** The valid values in words, as the core says them (e.g. "a whole number from 1 to 100000"). */
export function rangeText(spec: OptionSpec): string {
  const k = spec.kind;
  switch (k.type) {
    case 'int':
      return `a whole number from ${bound(k.min)} to ${bound(k.max)}`;
    case 'float':
      if (k.max === Number.POSITIVE_INFINITY) return `a number ≥ ${bound(k.min)}`;
      return k.max_open ? `a number from ${bound(k.min)} up to (not including) ${bound(k.max)}` : `a number from ${bound(k.min)} to ${bound(k.max)}`;
    case 'choice':
      return `one of ${k.choices.join(', ')}`;
  }
}

/** The input's text of a value ('' for a derived default). */
export function formatValue(v: OptionValue): string {
  return v === null ? '' : String(v);
}

export type Parsed = { ok: true; value: OptionValue } | { ok: false; key: string; message: string };

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Whether `v` is a valid value of the option (the core checks again). */
export function isValid(spec: OptionSpec, v: OptionValue): boolean {
  if (v === null) return isOptional(spec);
  const k = spec.kind;
  switch (k.type) {
    case 'int':
      return typeof v === 'number' && Number.isInteger(v) && v >= k.min && v <= k.max;
    case 'float':
      return typeof v === 'number' && Number.isFinite(v) && v >= k.min && (v < k.max || (!k.max_open && v === k.max));
    case 'choice':
      return typeof v === 'string' && k.choices.includes(v);
  }
}

/**
 * Reads an input's text (or a URL value) as a value of the option, checked against its kind
 * and range; the message names the option in the user's words, as the core's would.
 */
export function parseOption(spec: OptionSpec, text: string): Parsed {
  const t = text.trim();
  const refuse = (message: string): Parsed => ({ ok: false, key: spec.key, message });
  if (t === '') {
    return isOptional(spec) ? { ok: true, value: null } : refuse(`${spec.label} needs a value: ${rangeText(spec)}`);
  }
  let value: OptionValue;
  if (spec.kind.type === 'choice') {
    value = t;
  } else {
    if (!NUMBER.test(t)) return refuse(`${spec.label} must be ${rangeText(spec)}, got '${t}'`);
    value = Number(t);
    if (value === 0) value = 0; // no −0
  }
  if (!isValid(spec, value)) return refuse(`${spec.label} must be ${rangeText(spec)}, got '${t}'`);
  return { ok: true, value };
}
