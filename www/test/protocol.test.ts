import { describe, expect, it } from 'vitest';
import { addToRate, isErrorInfo, MAX_CHUNK, nextChunk, perSecond, SLICE_MS, toNextRecord } from '../src/protocol/messages';

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

describe('rates', () => {
  it('weighs slices by their time, so a slow slice with an evaluation counts in full', () => {
    let r = { updates: 0, ms: 0 };
    r = addToRate(r, 10, 10, 0); // fast slice: 1000/s
    r = addToRate(r, 10, 90, 0); // slow slice: ~111/s
    expect(perSecond(r)).toBeCloseTo(200, 9); // 20 updates in 100 ms, not the mean of the two rates
  });
  it('forgets the past gradually and ignores empty slices', () => {
    const r = addToRate({ updates: 100, ms: 100 }, 10, 100, 0.5);
    expect(r).toEqual({ updates: 60, ms: 150 });
    expect(addToRate(r, 0, 5)).toBe(r);
    expect(perSecond({ updates: 0, ms: 0 })).toBe(0);
  });
});

describe('toNextRecord', () => {
  it('counts the updates to the next multiple of every', () => {
    expect(toNextRecord(0, 50)).toBe(50);
    expect(toNextRecord(49, 50)).toBe(1);
    expect(toNextRecord(50, 50)).toBe(50);
    expect(toNextRecord(7, 0)).toBe(1);
  });
});

describe('isErrorInfo', () => {
  it("tells the core's error objects from panics and other throws", () => {
    expect(isErrorInfo({ kind: 'invalid_option', key: 'batch', message: 'batch size …' })).toBe(true);
    expect(isErrorInfo(new WebAssembly.RuntimeError('unreachable'))).toBe(false);
    expect(isErrorInfo('a string')).toBe(false);
    expect(isErrorInfo(null)).toBe(false);
  });
});
