// Where the "aggregate a CSV" page keeps its session budget: the budget file's JSON, in the site's
// IndexedDB. A charge is one readwrite transaction (read the record, spend, write it back), and
// IndexedDB runs the readwrite transactions of every tab of the site on a store one after another,
// so two tabs releasing at once cannot both spend what is left. (Two tabs clicking at one message
// both released a budget's last epsilon when it was kept in localStorage without a lock, 3 runs of
// 3, and when it was read and written in two transactions, 2 of 3: test/runtimes/aggregate-page.test.ts.)
const NAME = 'dpnoise-demo';
const STORE = 'budget';
const KEY = 'session';
let database;

function open() {
  database ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  return database;
}

/** The stored JSON text, or undefined before the first release. */
export async function readStored() {
  const db = await open();
  return new Promise((resolve, reject) => {
    const request = db.transaction(STORE).objectStore(STORE).get(KEY);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/**
 * Replaces the stored text with `change(text)` in one transaction and resolves to it; if `change`
 * throws, the transaction is aborted, nothing is stored, and the promise rejects with its error.
 */
export async function changeStored(change) {
  const db = await open();
  return new Promise((resolve, reject) => {
    const transaction = db.transaction(STORE, 'readwrite');
    const store = transaction.objectStore(STORE);
    const request = store.get(KEY);
    let next;
    let failure;
    request.onsuccess = () => {
      try {
        next = change(request.result);
        store.put(next, KEY);
      } catch (error) {
        failure = error;
        transaction.abort();
      }
    };
    transaction.oncomplete = () => resolve(next);
    transaction.onabort = () => reject(failure ?? transaction.error);
  });
}
