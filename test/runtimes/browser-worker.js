// The workload inside a module Web Worker.
import * as dpnoise from '/dist/index.js';
import { workload } from '/test/runtimes/workload.js';

await dpnoise.init();
postMessage(workload(dpnoise));
