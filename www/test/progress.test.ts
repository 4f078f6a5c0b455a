import { describe, expect, it } from 'vitest';
import {
  batchRows,
  epochsDone,
  etaMs,
  etaWithPoints,
  formatDuration,
  formatEpochs,
  formatPerSecond,
  paceParts,
  rowsPerSecond,
  stopInUpdates,
  stuckAtStop,
  updatesPerEpoch,
} from '../src/app/progress';

describe('epochs', () => {
  it('counts updates × batch / rows, fractionally', () => {
    expect(epochsDone(80, 100, 8000)).toBe(1);
    expect(epochsDone(20, 100, 8000)).toBe(0.25);
    expect(epochsDone(123, 100, 1000)).toBeCloseTo(12.3, 12);
    expect(epochsDone(5, 32, 32)).toBe(5); // full batch: an epoch per update
    expect(epochsDone(5, 10, 0)).toBe(0);
  });
  it("uses the lane's batch, or the whole data set when it has none", () => {
    expect(batchRows(100, 8000)).toBe(100);
    expect(batchRows(null, 32)).toBe(32);
    expect(batchRows(undefined, 32)).toBe(32);
  });
  it('gives one evaluation per epoch: 80 updates of 100 rows on the 8 000 training digits', () => {
    expect(updatesPerEpoch(8000, 100)).toBe(80);
    expect(updatesPerEpoch(1000, 100)).toBe(10);
    expect(updatesPerEpoch(50, 100)).toBe(1);
  });
});

describe('the end point', () => {
  it('is the number itself in updates, and epochs rounded up to whole updates', () => {
    expect(stopInUpdates(null, 'epochs', 100, 8000)).toBeNull();
    expect(stopInUpdates(700, 'updates', 100, 8000)).toBe(700);
    expect(stopInUpdates(10, 'epochs', 100, 8000)).toBe(800);
    expect(stopInUpdates(1, 'epochs', 30, 1000)).toBe(34); // 33.3 → 34: the epoch is complete
    expect(stopInUpdates(3, 'epochs', 32, 32)).toBe(3);
    expect(stopInUpdates(1, 'epochs', 100, 10)).toBe(1);
  });
});

describe('pace and time left', () => {
  it('gives rows per second from updates per second and the batch', () => {
    expect(rowsPerSecond(400, 100)).toBe(40_000);
    expect(rowsPerSecond(0, 100)).toBe(0);
  });
  it('gives the time to the end point at the current rate, none without an end or a rate', () => {
    expect(etaMs(200, 800, 100)).toBe(6000);
    expect(etaMs(900, 800, 100)).toBe(0);
    expect(etaMs(200, null, 100)).toBeNull();
    expect(etaMs(200, 800, 0)).toBeNull();
  });
  it('writes durations, epochs and rates for people', () => {
    expect(formatDuration(420)).toBe('0.4 s');
    expect(formatDuration(42_000)).toBe('42 s');
    expect(formatDuration(185_000)).toBe('3 min 05 s');
    expect(formatDuration(7_620_000)).toBe('2 h 07 min');
    expect(formatDuration(Number.NaN)).toBe('–');
    expect(formatEpochs(0.25)).toBe('0.25');
    expect(formatEpochs(15.43)).toBe('15.4');
    expect(formatEpochs(120.2)).toBe('120');
    expect(formatPerSecond(512.4, 'updates')).toBe('512 updates/s');
    expect(formatPerSecond(21_500, 'rows')).toBe('21.5k rows/s');
    expect(formatPerSecond(1_250_000, 'rows')).toBe('1.3M rows/s');
    expect(formatPerSecond(0, 'rows')).toBe('– rows/s');
  });
  it("makes a lane's progress line: epoch, updates/s, rows/s, elapsed and ETA while it runs to an end point", () => {
    const pace = { iter: 200, rate: 100, elapsed: 2000, batch: 100, rows: 8000, until: 800, running: true };
    expect(paceParts(pace)).toEqual(['epoch 2.50', '100 updates/s', '10.0k rows/s', 'elapsed 2.0 s', 'ETA 6.0 s']);
    expect(paceParts({ ...pace, until: null })).toEqual(['epoch 2.50', '100 updates/s', '10.0k rows/s', 'elapsed 2.0 s']);
    expect(paceParts({ ...pace, running: false })).toEqual(['epoch 2.50', '100 updates/s', '10.0k rows/s', 'elapsed 2.0 s']);
    expect(paceParts({ iter: 0, rate: 0, elapsed: 0, batch: 100, rows: 8000, until: 800, running: false })).toEqual(['epoch 0.00']);
  });
});

describe('stuckAtStop', () => {
  it('explains a Start that moves nothing: every lane stands at its end point', () => {
    expect(stuckAtStop([])).toBeNull();
    expect(
      stuckAtStop([
        { iter: 200, until: 200 },
        { iter: 100, until: 200 },
      ]),
    ).toBeNull();
    expect(stuckAtStop([{ iter: 5, until: null }])).toBeNull();
    expect(
      stuckAtStop([
        { iter: 2000, until: 2000 },
        { iter: 2000, until: 2000 },
      ]),
    ).toBe('Nothing moves: every lane has reached "stop at" (update 2,000). Raise or clear "stop at" to train on, or Reset to start again.');
  });
});

describe('the ETA of a lane waiting for exact points (issue 27)', () => {
  const pace = { iter: 2000, rate: 100, elapsed: 1000, batch: 100, rows: 8000, until: 4000, running: true };
  it('counts the points still to come at the wait per point so far, and says when it cannot know yet', () => {
    // Training alone: 2 000 updates at 100/s.
    expect(etaWithPoints(pace)).toBe(20_000);
    // Points every 1 000 updates, 30 s each so far; waiting for the one at 2 000: 3 to come.
    expect(etaWithPoints({ ...pace, exactWait: { every: 1000, ms: 60_000, points: 2, waiting: true } })).toBe(20_000 + 3 * 30_000);
    expect(paceParts({ ...pace, exactWait: { every: 1000, ms: 60_000, points: 2, waiting: true } }).at(-1)).toBe('ETA 1 min 50 s');
    expect(paceParts({ ...pace, exactWait: { every: 1000, ms: 0, points: 0, waiting: true } }).at(-1)).toBe('ETA once its first exact point is in');
  });
});
