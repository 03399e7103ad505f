// `npm run bundle`: the CLI and the server, dependencies included, as one CommonJS
// file, dist/bundle/lockstep.cjs, which bin/lockstep.js loads through a V8 code
// cache (bin/load-bundle.js). One file in CommonJS because that is what Node 20 can
// compile with a code cache (vm.Script); ES modules it cannot, short of experimental
// options. The Gemini, OpenAI, Anthropic and MCP SDKs are the exceptions: they stay in node_modules (see external).
import { rmSync } from "node:fs";
import { build } from "esbuild";

const OUT = "dist/bundle";

rmSync(OUT, { recursive: true, force: true }); // an old code cache goes with the old bundle
const result = await build({
  entryPoints: ["server/src/cli/main.ts"],
  outfile: `${OUT}/lockstep.cjs`,
  bundle: true,
  minify: true,
  sourcemap: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  // The Gemini SDK and what it brings (~700 KB: auth, websockets, fetch polyfills) stay in
  // node_modules, required when the agent first runs: a start without a usable code cache
  // then parses half as much, and the cache is smaller. The MCP SDK likewise (with hono,
  // ajv, express): required when an agent first connects to the companion endpoint or
  // `lockstep mcp` runs. Its subpaths (…/server/index.js) are external with it. The
  // openai package likewise: required when an OpenAI-compatible model is first asked, and
  // @anthropic-ai/sdk when Claude is.
  external: ["@google/genai", "@modelcontextprotocol/sdk", "openai", "@anthropic-ai/sdk"],
  // import() of a package becomes require(): a vm script (bin/load-bundle.js) has no
  // module loader to resolve import() with, short of an experimental Node option.
  supported: { "dynamic-import": false },
  // cli/package-root.ts finds the package from import.meta.url, which CommonJS lacks.
  define: { "import.meta.url": "importMetaUrl" },
  inject: ["scripts/import-meta-url.js"],
  // Licence comments go to lockstep.cjs.LEGAL.txt: some hold non-ASCII names, and an
  // all-ASCII bundle is a one-byte string V8 loads without decoding (~4 ms a start).
  legalComments: "external",
  logLevel: "warning",
});
if (result.warnings.length > 0) {
  process.stderr.write(
    `bundle: ${result.warnings.length} esbuild warning(s) above; the bundle must build without any.\n`,
  );
  process.exit(1);
}
