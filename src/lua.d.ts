// Lua scripts are bundled as text: esbuild's `text` loader and the Vitest plugin in
// vitest.config.ts both turn `import script from './x.lua'` into the file's contents.
declare module '*.lua' {
  const source: string;
  export default source;
}
