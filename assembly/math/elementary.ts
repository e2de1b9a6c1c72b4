// The elementary functions that figures reported by the JavaScript side are computed with. The
// engines' own Math.exp, Math.log, Math.pow and Math.expm1 differ in the last bit between V8,
// JavaScriptCore and SpiderMonkey; AssemblyScript's (ports of musl's, the same WebAssembly code on
// every engine) make every scale, error and privacy figure identical everywhere.

export function exp(x: f64): f64 {
  return Math.exp(x);
}

export function log(x: f64): f64 {
  return Math.log(x);
}

export function expm1(x: f64): f64 {
  return Math.expm1(x);
}

export function pow(x: f64, y: f64): f64 {
  return Math.pow(x, y);
}
