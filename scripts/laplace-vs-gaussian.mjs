// The README's table "Where Laplace beats the Gaussian": recommend()'s MSE ratios for four
// sensitivity profiles, three lengths and three epsilons at delta 1e-6, printed as Markdown.
// Run after `npm run build`: node scripts/laplace-vs-gaussian.mjs   (about 10 s)
import { recommend } from 'dpnoise';

const PROFILES = {
  'equal (all 1)': () => 1,
  '1 / (1 + i mod 100)': (i) => 1 / (1 + (i % 100)),
  'exp(-i / 10)': (i) => Math.exp(-i / 10),
  'exp(-i)': (i) => Math.max(Math.exp(-i), 1e-100),
};
const EPSILONS = [0.1, 1, 4];
console.log(`| profile | K | ${EPSILONS.map((e) => `epsilon ${e}`).join(' | ')} |`);
console.log(`| --- | ---: | ${EPSILONS.map(() => '---:').join(' | ')} |`);
for (const [name, f] of Object.entries(PROFILES)) {
  for (const K of [10, 100, 1000]) {
    const sensitivity = Array.from({ length: K }, (_, i) => f(i));
    const cells = EPSILONS.map((epsilon) => {
      const r = recommend({ sensitivity, epsilon, delta: 1e-6 });
      const ratio = (x) => (r.gaussian.mse / x.mse).toFixed(2);
      const cell = `${ratio(r.laplace)} (${ratio(r.laplacePure)})`;
      return r.best === 'laplace' ? `**${cell}**` : cell;
    });
    console.log(`| ${name} | ${K} | ${cells.join(' | ')} |`);
  }
}
