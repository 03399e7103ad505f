// `lockstep ask` as a user runs it: bin/lockstep.js spawned with node on a project root, with
// exactly the environment given, standard input closed, its standard output and error read as
// one text. Knows nothing of the provider or what the run should print.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../bin/lockstep.js");

/** The exit code and everything the command printed. */
export function runAsk(
  root: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "ask", ...args, "--root", root], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr.on("data", (b: Buffer) => (out += b.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out }));
  });
}
