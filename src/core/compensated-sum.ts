// Compensated summation of many doubles, for sums taken over chunks and for accounting.
/**
 * Sums many doubles with Neumaier's compensation (for the per-chunk partial sums). A sum that
 * overflows is Infinity, never NaN: the compensation stops at the first infinite partial sum.
 */
export class CompensatedSum {
  private sum = 0;
  private compensation = 0;

  add(x: number): void {
    const t = this.sum + x;
    if (Number.isFinite(t)) this.compensation += Math.abs(this.sum) >= Math.abs(x) ? this.sum - t + x : x - t + this.sum;
    this.sum = t;
  }

  get value(): number {
    return Number.isFinite(this.sum) ? this.sum + this.compensation : this.sum;
  }
}
