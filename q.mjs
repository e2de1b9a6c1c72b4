import { wasmVector, gaussianNoiseInto, addGaussianNoise, createRng, gaussianMechanism } from 'dpnoise';
const K = 1e7;
const time = (f, reps = 7) => { f(); const t = []; for (let r = 0; r < reps; r++) { const a = performance.now(); f(); t.push(performance.now() - a); } t.sort((x, y) => x - y); return (t[reps >> 1] * 1e6 / K).toFixed(2); };
const scalesArr = Float64Array.from({ length: K }, (_, i) => 0.5 + (i % 10) / 10);
const sv = wasmVector(K); sv.values.set(scalesArr);
const out = new Float64Array(K); const ov = wasmVector(K);
for (const [name, o] of [['csprng', {}], ['seeded', { rng: createRng({ seed: 1 }) }]]) {
  console.log(name, 'array into per-coord', time(() => gaussianNoiseInto(out, scalesArr, o)));
  console.log(name, 'vector into per-coord', time(() => gaussianNoiseInto(ov, sv, o)));
  console.log(name, 'array into one', time(() => gaussianNoiseInto(out, 1.5, o)));
  console.log(name, 'vector into one', time(() => gaussianNoiseInto(ov, 1.5, o)));
}
const sens = new Float64Array(K).fill(1);
const mg = gaussianMechanism({ sensitivity: sens, epsilon: 1, delta: 1e-6 });
const mc = gaussianMechanism({ sensitivity: sens, epsilon: 1, delta: 1e-6, mode: 'continuous' });
const q = wasmVector(K); q.values.fill(3);
console.log('release grid vec', time(() => mg.release(q, { out: ov }), 3));
console.log('release cont vec', time(() => mc.release(q, { out: ov }), 3));
