// Whether worker threads are paying on this host now. Threads pay only on idle cores, and no
// call can see other processes' load: on a 2-core host under a load average of 7.8, 2 threads
// cost 0.55x to 0.97x of one. So each parallel call whose workers were already running is judged
// against the single-thread time its own range implies; after two threaded calls in a row that
// lost, the next ones use one thread (1, 2, 4, ... up to 64 calls) before trying threads again.
// One loss alone does not count: the first call after a pause wakes a cold worker, and at 4e5
// coordinates that call alone lost 14 times in 16 where the next ones won (median 0.81 of one
// thread's time), so judging it alone kept the gate shut on idle cores. Under a seed the split
// never changes the noise, so this changes speed only.

/** Calls left to draw on one thread. */
let skip = 0;
/** Whether the last threaded call lost and was not counted (a counted loss starts the next pair afresh). */
let lostLast = false;
/** How many calls the next counted loss sends to one thread. */
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
  const lost = total > (mineMs * length) / mine;
  if (!lost) penalty = 1;
  else if (lostLast) {
    skip = penalty;
    penalty = Math.min(MAX_PENALTY, penalty * 2);
  }
  lostLast = lost && !lostLast;
}
