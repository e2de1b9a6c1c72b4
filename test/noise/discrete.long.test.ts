// The CSPRNG path of the discrete samplers at full statistical power, on the build of the test
// project (npm run test:long; .ci/run runs it after npm test). discrete.test.ts runs the same
// checks on fewer draws, with the power stated there.
import { describe, it } from 'vitest';
import { csprngDraws, expectCsprngPmf, expectLaw, gaussianCdf, rejectsCsprng } from './discrete-laws.js';

describe('the CSPRNG path of the discrete samplers, at full power', () => {
  // Power (scipy's ncx2 at the rejection level, 6 df): 4e5 Gaussian draws miss a 5% change with
  // probability below 1e-35 (noncentrality 417 to 451); at 1e5, 0.0024 to 0.0078 per check.
  it.each([1, 2, 3, 4, 5])('pool of %i words: discrete Gaussian s = 2 keeps its law (chi-square on 4e5 draws, a 5% change rejected)', (poolWords) => {
    expectLaw(csprngDraws('discreteGaussianSamples', 2, 400_000, poolWords), gaussianCdf, 2, `Gaussian, pool ${poolWords}`, rejectsCsprng);
  });

  // 5.5 SE: each of the 14 cells strays that far with probability 3.8e-8; at |y| = 1 that band is
  // 0.12% (Laplace) and 0.10% (Gaussian) of the count, and a bias of 0.19% (0.15%) is caught with
  // probability 0.999.
  it('4e7 draws of discrete Laplace t = 1 and discrete Gaussian s = 2 within 5.5 SE of the PMF at every |y| <= 6', () => {
    expectCsprngPmf(40_000_000);
  });
});
