import { describe, expect, it } from 'vitest';
import { LaneTurns, lanesAtOnce, turnsNote } from '../src/app/turns';

/** A LaneTurns over lanes named by strings, with what it told each lane. */
function setUp(capacity: number) {
  const log: string[] = [];
  const gates = new Map<string, boolean>();
  const turns = new LaneTurns<string>(capacity, {
    gate: (lane, on) => {
      gates.set(lane, on);
      log.push(`${lane}:gate ${on}`);
    },
    grant: (lane) => log.push(`${lane}:turn`),
  });
  const granted = () => log.filter((l) => l.endsWith(':turn')).map((l) => l.split(':')[0]);
  return { turns, log, gates, granted };
}

describe('lanesAtOnce', () => {
  it('one lane per core but the page’s own, never fewer than two', () => {
    expect(lanesAtOnce(1)).toBe(2);
    expect(lanesAtOnce(2)).toBe(2);
    expect(lanesAtOnce(4)).toBe(3);
    expect(lanesAtOnce(16)).toBe(15);
    expect(lanesAtOnce(undefined)).toBe(2);
    expect(lanesAtOnce(Number.NaN)).toBe(2);
  });
});

describe('LaneTurns', () => {
  it('lets up to `capacity` lanes compute freely, without turns', () => {
    const { turns, gates, granted } = setUp(2);
    turns.add('a');
    turns.add('b');
    expect([...gates.values()]).toEqual([false, false]);
    expect(turns.taking).toBe(false);
    turns.want('a'); // a late request: it may go at once
    expect(granted()).toEqual(['a']);
  });

  it('with more lanes, gates them all and hands out turns round-robin, at most `capacity` at a time', () => {
    const { turns, gates, granted } = setUp(2);
    for (const l of ['a', 'b', 'c', 'd', 'e']) turns.add(l);
    expect(turns.taking).toBe(true);
    expect([...gates.values()].every((on) => on)).toBe(true);
    for (const l of ['a', 'b', 'c', 'd', 'e']) turns.want(l);
    expect(granted()).toEqual(['a', 'b']);
    expect([turns.holders, turns.waiting]).toEqual([2, 3]);
    turns.want('c'); // asking twice changes nothing
    expect(turns.waiting).toBe(3);
    turns.over('a', true);
    turns.over('b', true);
    turns.over('c', true);
    turns.over('d', true);
    turns.over('e', true);
    turns.over('a', true);
    // Every lane had a turn before any had a second; the queue is fair.
    expect(granted()).toEqual(['a', 'b', 'c', 'd', 'e', 'a', 'b', 'c']);
    expect(turns.holders).toBeLessThanOrEqual(2);
  });

  it('a lane that hands its turn back with nothing left to do leaves the queue', () => {
    const { turns, granted } = setUp(1);
    for (const l of ['a', 'b', 'c']) turns.add(l);
    turns.want('a');
    turns.want('b');
    turns.over('a', false);
    turns.over('b', false);
    expect(granted()).toEqual(['a', 'b']);
    expect([turns.holders, turns.waiting]).toEqual([0, 0]);
  });

  it('a removed lane or a replaced worker gives its turn to the next; fewer lanes end the turns', () => {
    const { turns, gates, granted, log } = setUp(2);
    for (const l of ['a', 'b', 'c', 'd']) turns.add(l);
    for (const l of ['a', 'b', 'c', 'd']) turns.want(l);
    turns.replaced('a');
    expect(granted()).toEqual(['a', 'b', 'c']);
    expect(log.at(-2)).toBe('a:gate true'); // the new worker learns it takes turns
    turns.remove('b');
    expect(granted()).toEqual(['a', 'b', 'c', 'd']);
    turns.remove('c'); // two lanes left: everyone computes freely
    expect(turns.taking).toBe(false);
    expect(gates.get('a')).toBe(false);
    expect(gates.get('d')).toBe(false);
    turns.over('d', true); // a late hand-back: it just goes on
    expect(granted().at(-1)).toBe('d');
    turns.over('zz', true); // an unknown lane is ignored
  });

  it('refuses a capacity below one', () => {
    expect(() => setUp(0)).toThrow(RangeError);
  });
});

describe('turnsNote', () => {
  it('says nothing while every lane computes, and how lanes share the cores otherwise', () => {
    expect(turnsNote(2, 2)).toBe('');
    expect(turnsNote(64, 2)).toBe(
      "The 64 lanes take turns, 2 computing at a time (as many as this machine's cores allow beside the page): each trains about 2 s in every 64 s.",
    );
  });
});
