// An edge function's view of dpnoise (bundled under the `edge-light` condition).
import * as dpnoise from 'dpnoise';
import { workload } from './workload.js';

export async function run() {
  await dpnoise.init();
  return workload(dpnoise);
}
