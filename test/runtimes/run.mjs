// The workload in a runtime started as a process (runtime.ts): the package imported by its name, as
// a user's script imports it (the ES entry, dist/index.js), and report()'s JSON printed.
import * as dpnoise from 'dpnoise';
import { report } from './workload.js';

console.log(JSON.stringify(await report(dpnoise)));
