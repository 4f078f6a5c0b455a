// Numbers as the page shows them.
import type { StatSpec } from '../generated/core';

/** Formats a statistic's number. */
export function formatStat(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (Number.isInteger(x)) return String(x);
  return Math.abs(x) >= 100 ? x.toFixed(1) : x.toPrecision(3);
}

/** A statistic with its declared unit, e.g. "2.41 steps". */
export function formatStatWithUnit(spec: StatSpec, x: number): string {
  return spec.unit ? `${formatStat(x)} ${spec.unit}` : formatStat(x);
}
