// A fake lane worker for the page's unit tests: records what the page posts; `reply` plays a
// message of the worker.
import type { WorkerLike } from '../src/app/lane';
import type { FromWorker, ToWorker } from '../src/protocol/messages';

export class FakeWorker implements WorkerLike {
  posted: ToWorker[] = [];
  terminated = false;
  onmessage: ((e: MessageEvent<FromWorker>) => void) | null = null;
  onerror: ((e: ErrorEvent) => void) | null = null;
  constructor(readonly name: string) {}
  postMessage(msg: ToWorker): void {
    this.posted.push(msg);
  }
  terminate(): void {
    this.terminated = true;
  }
  reply(msg: FromWorker): void {
    this.onmessage?.({ data: msg } as MessageEvent<FromWorker>);
  }
  /** The latest message of a type the page posted. */
  last<T extends ToWorker['type']>(type: T): Extract<ToWorker, { type: T }> | undefined {
    return this.posted.filter((m) => m.type === type).at(-1) as Extract<ToWorker, { type: T }> | undefined;
  }
}
