// The joint staircase in d dimensions (src/calibrate/staircase-norms.ts): the journal's Table V-4
// row and mpmath's values for the 2-D l1 case, one dimension against the 1-D staircase, and the
// small-epsilon limit, where the staircase becomes the K-norm mechanism (density e^(-eps ||x||),
// radius Gamma(d, eps): E R = d / eps, E R^2 = d (d + 1) / eps^2).
import { describe, expect, it } from 'vitest';
import { staircase2dError, staircaseNormError } from '../../src/index.js';
import { staircaseCost } from '../../src/calibrate/staircase.js';
import { expectClose, fixture } from '../helpers.js';

const reference = fixture<{ twoDimensional: Array<{ epsilon: number; error: number }> }>('staircase.json');

describe('staircase2dError', () => {
  it("reproduces the journal's Table V-4 staircase row", () => {
    for (const { epsilon, error } of reference.twoDimensional) expectClose(staircase2dError({ epsilon }), error, 1e-12, `eps ${epsilon}`);
    expect([0.5, 1, 1.5, 2, 2.5, 3].map((epsilon) => staircase2dError({ epsilon }).toFixed(4))).toEqual([
      '3.9962',
      '1.9862',
      '1.3050',
      '0.9546',
      '0.7366',
      '0.5856',
    ]);
    expect(() => staircase2dError({ epsilon: -1 })).toThrow(RangeError);
    expect(() => staircase2dError(3 as never)).toThrow(TypeError);
  });
});

describe('staircaseNormError', () => {
  it('is the 2-D l1 row in two dimensions, and the 1-D staircase in one, for either norm', () => {
    for (const epsilon of [0.5, 3, 10])
      expectClose(staircaseNormError({ dimension: 2, norm: 'l1', epsilon }), staircase2dError({ epsilon }), 1e-15, `eps ${epsilon}`);
    for (const norm of ['l1', 'l2'] as const) {
      for (const p of [1, 2] as const) {
        for (const epsilon of [0.2, 3, 30]) {
          expectClose(staircaseNormError({ dimension: 1, norm, epsilon, errorPower: p }), staircaseCost(p, epsilon), 1e-12, `${norm}, p ${p}, eps ${epsilon}`);
        }
      }
    }
  });

  it('becomes the K-norm mechanism as epsilon -> 0: E||X|| = d / eps and E||X||_2^2 = d (d + 1) / eps^2 (l2), times the sphere averages', () => {
    const epsilon = 0.02;
    for (const d of [2, 5, 12]) {
      expectClose(staircaseNormError({ dimension: d, norm: 'l1', epsilon }) * (epsilon / d), 1, 1e-4, `l1, d ${d}`);
      expectClose(staircaseNormError({ dimension: d, norm: 'l2', epsilon, errorPower: 2 }) * (epsilon ** 2 / (d * (d + 1))), 1, 1e-4, `l2, d ${d}`);
      // l1 norm, l2 error: E||U||_2^2 = 2/(d+1) on the l1 sphere; l2 norm, l1 error: E||U||_1 = d Gamma(d/2) / (sqrt(pi) Gamma((d+1)/2)).
      expectClose(
        staircaseNormError({ dimension: d, norm: 'l1', epsilon, errorPower: 2 }) * (epsilon ** 2 / (d * (d + 1))),
        2 / (d + 1),
        1e-4,
        `l1 norm, l2 error, d ${d}`,
      );
    }
    expectClose(
      staircaseNormError({ dimension: 2, norm: 'l2', epsilon }) * (epsilon / 2),
      4 / Math.PI,
      1e-4,
      'l2 norm, l1 error, d 2: E(|cos| + |sin|) = 4/pi',
    );
  });

  it('refuses what it cannot compute, by name', () => {
    expect(() => staircaseNormError({ dimension: 0, norm: 'l1', epsilon: 1 })).toThrow(/`dimension`/);
    expect(() => staircaseNormError({ dimension: 2, norm: 'linf' as never, epsilon: 1 })).toThrow(/`norm`/);
    expect(() => staircaseNormError({ dimension: 2, norm: 'l1', epsilon: 1, errorPower: 3 as never })).toThrow(/`errorPower` must be 1 or 2/);
    expect(() => staircaseNormError({ dimension: 1000, norm: 'l2', epsilon: 1e-6 })).toThrow(/too small for dimension 1000/);
  });
});
