#!/usr/bin/env node
// The installed entry point: the CLI bundled into a few files, so start-up reads little.
// `npm ci` builds the bundle (the prepare script); after editing the source, `npm run build`.
let cli;
try {
  cli = await import("../dist/bundle/main.js");
} catch (error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND") throw error;
  process.stderr.write("lockstep is not built yet: run `npm run build` (npm ci does it) in the lockstep folder.\n");
  process.exit(2);
}
process.exitCode = await cli.main(process.argv.slice(2));
