// The same through require(): the CommonJS entry, dist/index.cjs (commonjs.test.ts).
const dpnoise = require('dpnoise');

import('./workload.js').then(async ({ report }) => console.log(JSON.stringify(await report(dpnoise))));
