// A Cloudflare worker using dpnoise through its `workerd` export condition; `?simd=false` loads
// the scalar build.
import * as dpnoise from 'dpnoise';
import { workload } from './workload.js';

export default {
  async fetch(request) {
    await dpnoise.init(new URL(request.url).searchParams.get('simd') === 'false' ? { simd: false } : {});
    return Response.json(workload(dpnoise));
  },
};
