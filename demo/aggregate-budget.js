// The session budget of the "aggregate a CSV" page: a dpnoise budget ledger kept in the page's
// storage (aggregate-budget-store.js) as the JSON of the command line's budget file, charged
// before a release hands the file to the worker, shown, and exported as a file that
// `dpnoise aggregate --budget` charges (docs/aggregates.md, "The budget").
import { createBudget, restoreBudget } from '/dist/index.js';
import { changeStored, readStored } from './aggregate-budget-store.js';
import { fmt } from './aggregate-format.js';

/** Tells the site's other tabs that the budget changed. */
const channel = new BroadcastChannel('dpnoise-budget');

/** The ledger of a stored text (undefined before the first release); throws if it cannot be read. */
const ledgerOf = (text) => (text === undefined ? undefined : restoreBudget(JSON.parse(text)));

/** A budget's size: "1.5 at delta 1e-5" (or "1.5" for pure epsilon-DP). */
const size = (b) => `${fmt(b.total.epsilon)}${b.total.delta === undefined ? '' : ` at delta ${fmt(b.total.delta)}`}`;

/**
 * What the budget's line says: what the releases recorded spend, of what, and what is left (or,
 * before the first release, the budget `target` its fields set).
 */
function describe(budget, target) {
  if (budget === undefined) return target === undefined ? 'Set the session budget.' : `No release yet: the budget is epsilon ${size(createBudget(target))}.`;
  const n = budget.releases;
  return `${n} release${n === 1 ? '' : 's'}: spent epsilon ${fmt(budget.spent.epsilon)} of ${size(budget)}; ${fmt(budget.remaining.epsilon)} left.`;
}

/**
 * The session budget shown in `view` (its line, meter and fields `epsilon` and `delta`, fixed once
 * a release is recorded); `target()` reads the fields (undefined while they are wrong), and
 * `onChange` is called when the record changes, here or in another tab.
 */
export function sessionBudget(view, target, onChange) {
  let text; // the stored JSON, as last read
  const refresh = async () => {
    text = await readStored();
    onChange();
  };
  channel.onmessage = refresh;

  return {
    /** Resolves once the stored record is read. */
    loaded: refresh(),
    show() {
      let budget;
      try {
        budget = ledgerOf(text);
      } catch (error) {
        view.line.textContent = `The stored session budget cannot be read (${error.message}); releases are refused until it is removed from this site's storage.`;
        return;
      }
      view.line.textContent = describe(budget, target());
      view.meter.max = budget?.total.epsilon ?? 1;
      view.meter.value = budget?.spent.epsilon ?? 0;
      for (const field of [view.epsilon, view.delta]) field.disabled = budget !== undefined;
      if (budget) {
        view.epsilon.value = String(budget.total.epsilon);
        view.delta.value = budget.total.delta === undefined ? '' : String(budget.total.delta);
      }
    },
    /** What spending `privacy` would leave: the record with it (a copy; nothing is stored), or the budget's refusal. */
    preview(privacy) {
      const after = restoreBudget((ledgerOf(text) ?? createBudget(target())).toJSON());
      after.spend(privacy);
      return after;
    },
    /**
     * Records `privacy` in the stored budget, created from the fields at the first release, in one
     * transaction; rejects with the budget's RangeError, storing nothing, if it would exceed it.
     */
    async charge(privacy) {
      text = await changeStored((stored) => {
        const budget = ledgerOf(stored) ?? createBudget(target());
        budget.spend(privacy);
        return JSON.stringify(budget);
      });
      channel.postMessage('charged');
      onChange();
    },
    /** Downloads the stored budget as the command line's budget file: its JSON and a newline, as `dpnoise budget --output` writes it. */
    async download() {
      text = await readStored();
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([`${text ?? JSON.stringify(createBudget(target()))}\n`], { type: 'application/json' }));
      link.download = 'budget.json';
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
    },
  };
}
