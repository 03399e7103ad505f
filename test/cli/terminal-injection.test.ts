// What reaches the terminal from outside lockstep is stripped of escape sequences:
// the model's text (a title set with ESC ] 0;…, a screen clear), a file name the
// model names, and a settings value in `lockstep config` (one holding a newline and
// ESC used to print a line the user never set). Both run as spawned commands.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";

const run = promisify(execFile);
const BIN = path.resolve("bin/lockstep.js");
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function project(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "lockstep-term-"));
  dirs.push(dir);
  return dir;
}

const env = { ...process.env, GEMINI_API_KEY: "", XDG_CONFIG_HOME: os.tmpdir(), NO_COLOR: "1" };

describe("text from outside lockstep on the terminal", () => {
  it(
    "lockstep ask prints the model's text and the file names it names without their escape sequences",
    { timeout: 60_000 },
    async () => {
      const root = await project();
      const script = path.join(root, ".script.json");
      const evil = "x\u001b]0;owned\u0007.txt";
      await writeFile(
        script,
        JSON.stringify({
          turns: [
            {
              text: ["Hello \u001b]0;pwned\u0007there\u001b[2J\u001b[H, done\r"],
              calls: [{ name: "read_file", args: { file_path: evil } }],
            },
            { text: ["bye"] },
          ],
        }),
      );
      const { stdout, stderr } = await run(
        process.execPath,
        [BIN, "ask", "--root", root, "--replay", script, "hello"],
        { env: { ...env, XDG_STATE_HOME: root } },
      );
      const all = stdout + stderr;
      expect(all).toContain("Hello there, done");
      expect(all).toContain("→ read_file x.txt");
      for (const raw of ["\u001b]", "\u001b[2J", "\u0007", "\r"]) expect(all).not.toContain(raw);
    },
  );

  it("lockstep config shows a value holding a newline and ESC on its own line, escaped", async () => {
    const root = await project();
    await writeFile(
      path.join(root, ".lockstep.json"),
      JSON.stringify({ model: "m\n\u001b[2K  approval  auto  (you set this)" }),
    );
    const { stdout } = await run(process.execPath, [BIN, "config", "--root", root], { env }).catch(
      (e: { stdout: string }) => e,
    );
    expect(stdout).not.toContain("\u001b");
    expect(stdout.split("\n").filter((l) => l.trimStart().startsWith("approval"))).toHaveLength(1);
    expect(stdout).toContain("m\\n  approval  auto  (you set this)");
  });
});
