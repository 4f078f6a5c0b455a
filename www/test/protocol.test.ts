import { describe, expect, it } from 'vitest';
import { MAX_CHUNK, SLICE_MS, nextChunk, smoothRate } from '../src/protocol';

describe('nextChunk (time slicing)', () => {
  it('aims at the slice duration', () => {
    expect(nextChunk(100, SLICE_MS)).toBe(100);
    expect(nextChunk(100, SLICE_MS * 1.25)).toBe(80);
  });
  it('grows at most ×2 and shrinks at most ÷4 per slice', () => {
    expect(nextChunk(10, 1)).toBe(20);
    expect(nextChunk(100, 10_000)).toBe(25);
  });
  it('stays within [1, MAX_CHUNK] and survives a zero or bad timing', () => {
    expect(nextChunk(1, 1000)).toBe(1);
    expect(nextChunk(MAX_CHUNK, 0)).toBe(MAX_CHUNK);
    expect(nextChunk(7, 0)).toBe(14);
    expect(nextChunk(7, Number.NaN)).toBe(14);
  });
});

describe('smoothRate', () => {
  it('starts at the first measurement and then moves a fraction towards new ones', () => {
    const r0 = smoothRate(null, 50, 100);
    expect(r0).toBe(500);
    expect(smoothRate(r0, 100, 100, 0.5)).toBe(750);
  });
  it('ignores empty slices', () => {
    expect(smoothRate(300, 0, 10)).toBe(300);
    expect(smoothRate(null, 10, 0)).toBeNull();
  });
});
