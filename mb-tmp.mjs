import { wasm } from './dist/wasm/loader.js';
import './dist/index.js';
const w = wasm();
const n = 6000,
  h = 2 ** -10,
  q = 0.01;
const at = w.arena(16 * n + 64);
for (const mu of [0.83, 1.25]) {
  const lower = Math.floor(Math.log(1 + q * Math.expm1((-mu * mu) / 2 - 9 * mu)) / h);
  let t0 = performance.now();
  for (let r = 0; r < 100; r++) w.connectDots(0, mu, 0, q, 0, lower, h, n, at, at + 8 * n);
  const tc = ((performance.now() - t0) / 100 / n) * 1e6;
  t0 = performance.now();
  for (let r = 0; r < 100; r++) w.hockeyDeltas(0, mu, 0, q, 0, lower, h, n, at);
  const th = ((performance.now() - t0) / 100 / n) * 1e6;
  console.log('mu', mu, 'connectDots ns/pt', tc.toFixed(1), 'hockeyDeltas ns/pt', th.toFixed(1));
}
