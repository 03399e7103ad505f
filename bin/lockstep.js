#!/usr/bin/env node
// The installed entry point: the CLI bundled into one file, loaded through a V8 code
// cache so start-up compiles little (load-bundle.js).
// `npm ci` builds the bundle (the prepare script); after editing the source, `npm run build`.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadBundle } from "./load-bundle.js";

const bundle = fileURLToPath(new URL("../dist/bundle/lockstep.cjs", import.meta.url));
if (!existsSync(bundle)) {
  process.stderr.write(
    "lockstep is not built yet: run `npm run build` (npm ci does it) in the lockstep folder.\n",
  );
  process.exit(2);
}
const cli = loadBundle(bundle);
process.exitCode = await cli.main(process.argv.slice(2));
