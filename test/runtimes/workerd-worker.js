// A Cloudflare worker using dpnoise through its `workerd` export condition.
import * as dpnoise from 'dpnoise';
import { workload } from './workload.js';

export default {
  async fetch() {
    await dpnoise.init();
    return Response.json(workload(dpnoise));
  },
};
