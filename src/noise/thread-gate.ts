// Whether worker threads are paying on this host now. Threads pay only on idle cores, and no
// call can see other processes' load: on a 2-core host under a load average of 7.8, 2 threads
// cost 0.55x to 0.97x of one. So each parallel call whose workers were already running is judged
// against the single-thread time its own range implies; after a call that lost, the next ones
// use one thread (1, 2, 4, ... up to 64 calls) before trying threads again. Under a seed the
// split never changes the noise, so this changes speed only.

/** Calls left to draw on one thread. */
let skip = 0;
/** How many calls the next loss sends to one thread. */
let penalty = 1;
const MAX_PENALTY = 64;

/** Whether this call may hand ranges to workers; counts down the calls sent to one thread. */
export function threadsPay(): boolean {
  if (skip === 0) return true;
  skip--;
  return false;
}

/**
 * Judges a call that ran on pooled workers: `total` ms for `length` coordinates, of which the
 * calling thread drew `mine` in `mineMs`. Lost when one thread would have drawn them all sooner.
 */
export function judge(total: number, length: number, mine: number, mineMs: number): void {
  if (total > (mineMs * length) / mine) {
    skip = penalty;
    penalty = Math.min(MAX_PENALTY, penalty * 2);
  } else penalty = 1;
}
