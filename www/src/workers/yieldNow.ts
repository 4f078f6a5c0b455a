// Zero-delay yields for a worker's loop, through a MessageChannel (nested setTimeout is clamped
// to 4 ms): the page's messages (pause, reset, stop) are handled between two slices.

/** A scheduler that runs `fn` after the messages already queued; a later call replaces an
 * earlier one not yet run. */
export function zeroDelayScheduler(): (fn: () => void) => void {
  const channel = new MessageChannel();
  let next: (() => void) | null = null;
  channel.port1.onmessage = () => {
    const fn = next;
    next = null;
    fn?.();
  };
  return (fn) => {
    next = fn;
    channel.port2.postMessage(0);
  };
}
