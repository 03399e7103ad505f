// Where the installed package is (bin/, demo/), wherever this file was bundled to.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The package's root: the nearest folder above this file that holds bin/lockstep.js. */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "bin", "lockstep.js")) && path.dirname(dir) !== dir)
    dir = path.dirname(dir);
  return dir;
}
