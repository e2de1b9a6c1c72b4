// Event reconstruction: the privacy object of an event (from a DpEvent or a restored ledger),
// rebuilt as the kinds compose made it.
import type { Event } from '../engine/events.js';
import { closeGaussianRoute, eventPrivacy, gaussianDistanceOf, gdpPrivacy, type Privacy, purePrivacy, thresholdedPrivacy, zcdpPrivacy } from './privacy.js';
import { composeItems } from './combinators.js';

/**
 * The privacy object of one release's event (a budget's record), of the kind the release itself
 * reported: a 'close' event of grid-mode Gaussian noise is rho-zCDP with the Gaussian route, a
 * Gaussian mu-GDP, pure epsilon pure, a composition composed again from its parts rebuilt; any
 * other event as compose reads a DpEvent.
 */
export function privacyOfEvent(event: Event): Privacy {
  switch (event.type) {
    case 'gaussian':
      return gdpPrivacy(event.mu, 'gaussian', [], event);
    case 'pure':
      return purePrivacy(event.epsilon, 'laplace', [], event);
    case 'zcdp':
      return zcdpPrivacy(event.rho, 'discrete-gaussian', [], event);
    case 'thresholded':
      return thresholdedPrivacy(privacyOfEvent(event.event), event.delta);
    case 'composed':
      // As compose made it: its parts rebuilt as their kinds, composed again.
      if (event.events.length === 0) return eventPrivacy(event);
      return composeItems(
        event.events.map(([child, times]) => ({ privacy: privacyOfEvent(child), times })),
        'pld',
      );
    case 'close': {
      const mu = gaussianDistanceOf(event);
      if (mu !== undefined && event.fallback.type === 'zcdp') {
        return zcdpPrivacy(event.fallback.rho, 'discrete-gaussian', [], event, event.fallback, closeGaussianRoute(mu, event.slack));
      }
      return eventPrivacy(event);
    }
    default:
      return eventPrivacy(event);
  }
}
