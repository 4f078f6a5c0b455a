// The students' own patterns, DOM-free: 0/1 lines (drawn on a D×D grid or pasted), read with
// the core's rules (Dataset::parse: blank lines and `#` comments skipped, spaces ignored, every
// pattern of one length), and the picker's entry of such a set: its distinct patterns with
// their counts and its bound (minus the entropy of the patterns), so the page treats it as a
// small set — exact curve, model distribution — like the built-in ones. Workers load it from a
// `data:` URL (no file, nothing fetched from anywhere).
import type { DataSetEntry } from '../generated/core';

/** Most rows and units the page takes from a drawing or a paste. */
export const MAX_PATTERN_ROWS = 10_000;
export const MAX_PATTERN_UNITS = 64;

export type ParsedPatterns = { ok: true; rows: string[]; m: number } | { ok: false; message: string };

/** The patterns of `text` (each as a string of 0 and 1), or the first problem with its line. */
export function parsePatterns(text: string): ParsedPatterns {
  const rows: string[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i].trim();
    if (t === '' || t.startsWith('#')) continue;
    const row = t.replace(/\s+/g, '');
    const bad = row.match(/[^01]/);
    if (bad) return { ok: false, message: `line ${i + 1}: unexpected character '${bad[0]}' (patterns are 0/1 strings)` };
    if (rows.length && row.length !== rows[0].length)
      return { ok: false, message: `line ${i + 1}: pattern has ${row.length} units, earlier ones have ${rows[0].length}` };
    if (row.length > MAX_PATTERN_UNITS) return { ok: false, message: `line ${i + 1}: at most ${MAX_PATTERN_UNITS} units per pattern` };
    rows.push(row);
    if (rows.length > MAX_PATTERN_ROWS) return { ok: false, message: `at most ${MAX_PATTERN_ROWS.toLocaleString('en')} patterns` };
  }
  if (!rows.length) return { ok: false, message: 'no patterns yet: draw one and add it, or paste 0/1 lines' };
  return { ok: true, rows, m: rows[0].length };
}

/** The side of a square pattern of m units, or null. */
export function squareSide(m: number): number | null {
  const s = Math.round(Math.sqrt(m));
  return s * s === m ? s : null;
}

/** The picker's entry of the patterns `rows` as data set `name`. */
export function patternsEntry(name: string, rows: string[]): DataSetEntry {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r, (counts.get(r) ?? 0) + 1);
  const n = rows.length;
  let bound = 0;
  for (const c of counts.values()) bound += (c / n) * Math.log(c / n);
  const m = rows[0].length;
  const side = squareSide(m);
  return {
    name,
    description: `${name}: your ${n} pattern${n === 1 ? '' : 's'} of ${side ? `${side}×${side}` : `${m} units`} (${counts.size} distinct)`,
    rows: n,
    m,
    shape: side ? [side, side] : null,
    bound,
    patterns: [...counts.keys()].map((r) => [...r].map(Number)),
    counts: [...counts.values()],
    asset: null,
  };
}

/** The patterns as the data-file format: one 0/1 line each. */
export function patternsText(rows: string[]): string {
  return `${rows.join('\n')}\n`;
}

/** A `data:` URL of ASCII text (what a worker fetches the patterns from). */
export function textDataUrl(text: string): string {
  return `data:text/plain;base64,${btoa(text)}`;
}

/** A drawn grid (row-major 0/1 cells) as a pattern line. */
export function gridLine(cells: readonly boolean[]): string {
  return cells.map((c) => (c ? '1' : '0')).join('');
}
