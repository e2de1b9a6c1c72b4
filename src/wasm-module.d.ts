// The build's .wasm files, imported as compiled modules by runtimes such as workerd.
declare module '*.wasm' {
  const module: WebAssembly.Module;
  export default module;
}
