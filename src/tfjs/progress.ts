// The progress bar of a private training run, on standard error when it is a terminal (Node): the
// steps taken, the epsilon they spend and the validation figures, nothing computed from the
// training data (docs/training.md, "What is printed").
const WIDTH = 30;

export interface ProgressBar {
  /** Draws `done` of `total` steps and the figures after them. */
  update(done: number, total: number, figures: string): void;
  /** Ends the bar's line, if one was drawn. */
  done(): void;
}

/** A bar, or one that draws nothing when `show` is false or standard error is not a terminal. */
export function progressBar(show: boolean): ProgressBar {
  const stream = typeof process === 'undefined' ? undefined : process.stderr;
  const drawing = show && stream?.isTTY === true;
  let drawn = false;
  return {
    update(done, total, figures) {
      if (!drawing) return;
      const filled = Math.round((WIDTH * done) / total);
      stream.write(`\r\x1b[2Kstep ${done}/${total} [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${figures}`);
      drawn = true;
    },
    done() {
      if (drawn) stream?.write('\n');
    },
  };
}
