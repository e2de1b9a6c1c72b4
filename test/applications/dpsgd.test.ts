import { describe, expect, it } from 'vitest';
import { gaussianPrivacy, perLayerNoise } from '../../src/index.js';
import { EPS, expectClose, SAFETY } from '../helpers.js';

describe('DP-SGD with per-layer clipping', () => {
  const layerSizes = [432, 2304, 2304, 9216, 36864, 650];
  const clipNorms = layerSizes.map(() => 1 / Math.sqrt(layerSizes.length));

  it('every rule spends mu = 1/z per step; optimal has the least total noise', () => {
    const z = 1.1;
    const { optimal, spr, global } = perLayerNoise({ layerSizes, clipNorms, noiseMultiplier: z });
    for (const c of [optimal, spr, global]) {
      expectClose(c.mu, 1 / z, 0, 'mu'); // exact: the same division
      expect(gaussianPrivacy({ scales: c.scales, sensitivity: clipNorms }).mu).toBeLessThanOrEqual(1 / z);
    }
    // Global clipping to ||C||_2 = 1: sigma = z for every parameter.
    // z raised by SAFETY, plus a few roundings: 4 EPS (measured SAFETY - 0.55 EPS; earlier 1e-10).
    global.scales.forEach((s) => {
      expectClose(s, z, SAFETY + 4 * EPS, 'global');
    });
    expect(optimal.mse).toBeLessThan(spr.mse);
    expect(optimal.mse).toBeLessThan(global.mse);
    // Flat clipping: spr is iid here; the optimum follows the layer sizes, sigma_l ~ n_l^(-1/4).
    // Both carry SAFETY; two formulas for the same scales, squared and summed: 8 EPS (measured
    // 1.57 EPS; earlier 1e-10).
    expectClose(spr.mse, global.mse, 8 * EPS, 'flat spr = global');
    // A ratio of two scales (each a few EPS from its closed form) against a fourth root: 8 EPS
    // (measured 1.11 EPS; earlier 1e-12).
    optimal.scales.forEach((s, l) => {
      expectClose(s / optimal.scales[0]!, (layerSizes[0]! / layerSizes[l]!) ** 0.25, 8 * EPS, `layer ${l}`);
    });
  });

  it('checks its input', () => {
    expect(() => perLayerNoise({ layerSizes: [10], clipNorms: [1, 1], noiseMultiplier: 1 })).toThrow(/`layerSizes.length` must be 2/);
    expect(() => perLayerNoise({ layerSizes: [10], clipNorms: [1], noiseMultiplier: 0 })).toThrow(/`noiseMultiplier`/);
  });
});
