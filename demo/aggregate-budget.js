// The session budget of the "aggregate a CSV" page: a dpnoise budget ledger kept in the page's
// storage as the JSON of the command line's budget file, charged before a release hands the file
// to the worker (under a lock, so that two tabs cannot both spend what is left), shown, and
// exported as a file `dpnoise aggregate --budget` charges (docs/aggregates.md, "The budget").
import { createBudget, restoreBudget } from '/dist/index.js';
import { fmt } from './aggregate-format.js';

const KEY = 'dpnoise-budget';

/** The budget recorded in the page's storage, or undefined before the first release; throws if it cannot be read. */
function stored() {
  const text = localStorage.getItem(KEY);
  return text === null ? undefined : restoreBudget(JSON.parse(text));
}

/** Runs `task` holding the page's budget lock (shared by every tab of this site), where the browser has locks. */
const locked = (task) => (navigator.locks ? navigator.locks.request(KEY, task) : task());

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
 * a release is recorded), `target()` reading the fields (undefined while they are wrong).
 */
export function sessionBudget(view, target) {
  function show() {
    let budget;
    try {
      budget = stored();
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
  }
  addEventListener('storage', (event) => event.key === KEY && show()); // another tab's release

  return {
    show,
    /**
     * What spending `privacy` would leave: the record with it (a copy; nothing is stored), or the
     * budget's refusal.
     */
    preview(privacy) {
      const copy = stored() ?? createBudget(target());
      const after = restoreBudget(copy.toJSON());
      after.spend(privacy);
      return after;
    },
    /**
     * Records `privacy` in the stored budget, creating it from the fields at the first release;
     * throws the budget's RangeError, storing nothing, if it would exceed it.
     */
    charge: (privacy) =>
      locked(() => {
        const budget = stored() ?? createBudget(target());
        budget.spend(privacy);
        localStorage.setItem(KEY, JSON.stringify(budget));
        show();
      }),
    /** Downloads the budget as the command line's budget file: its JSON and a newline, as `dpnoise budget --output` writes it. */
    download() {
      const text = localStorage.getItem(KEY) ?? JSON.stringify(createBudget(target()));
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([`${text}\n`], { type: 'application/json' }));
      link.download = 'budget.json';
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
    },
  };
}
