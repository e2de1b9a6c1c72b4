// A progress bar on standard error, drawn only on a terminal: long inputs show how far they are.
const WIDTH = 30;

export interface ProgressBar {
  /** Shows the fraction done, in [0, 1]. */
  update(fraction: number): void;
  /** Fills the bar and ends its line (if one was drawn). */
  done(): void;
}

/** A bar labelled `label`, or one that draws nothing when standard error is not a terminal or `show` is false. */
export function progressBar(label: string, show = true): ProgressBar {
  const drawing = show && process.stderr.isTTY === true;
  let drawn = false;
  const update = (fraction: number) => {
    if (!drawing) return;
    const done = Math.min(1, Math.max(0, fraction));
    const filled = Math.round(WIDTH * done);
    process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${Math.round(100 * done)}%`);
    drawn = true;
  };
  const done = () => {
    if (!drawn) return;
    update(1);
    process.stderr.write('\n');
  };
  return { update, done };
}
