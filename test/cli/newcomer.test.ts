// The first five minutes, as a newcomer lives them: a fresh HOME (no user settings, no
// key in the environment), a project whose .lockstep.json points at an OpenAI-compatible
// endpoint (a fake on loopback), then `lockstep ask` with no provider flags on a terminal,
// `lockstep config`, and apply-patch refused and applied, on a terminal and through a pipe.
import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { createPatch } from "diff";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAi, type FakeOpenAi, type FakeAnswer } from "../support/fake-openai.js";
import { sha256Of, tempDir } from "../support/workspace-fixture.js";
import { BIN, requireBuild } from "./cli-run.js";
import { onTerminal } from "./pty.js";

requireBuild();

const BEFORE =
  "export function median(values) {\n  const middle = Math.floor(values.length / 2);\n  return values[middle];\n}\n";
const AFTER = BEFORE.replace(
  "  return values[middle];",
  "  const sorted = [...values].sort((a, b) => a - b);\n  return sorted[middle];",
);
const FIX = createPatch("src/stats.js", BEFORE, AFTER);
const STRAY = "@@ -1,2 +1,2 @@\n export function mean(values) {\n-  return 0;\n+  return 1;\n";

let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A fresh HOME and XDG config folder, and no API key of any provider in the environment. */
function freshEnv(): NodeJS.ProcessEnv {
  const home = tempDir("lockstep-newcomer-home-");
  return {
    PATH: process.env["PATH"],
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    TERM: "xterm",
    LANG: "C.UTF-8",
  };
}

async function project(settings: Record<string, unknown> | undefined): Promise<string> {
  const root = await fs.realpath(tempDir("lockstep-newcomer-"));
  await fs.mkdir(path.join(root, "src"));
  await fs.writeFile(path.join(root, "src/stats.js"), BEFORE);
  await fs.writeFile(path.join(root, "fix.diff"), FIX);
  await fs.writeFile(path.join(root, "stray.diff"), STRAY);
  if (settings)
    await fs.writeFile(path.join(root, ".lockstep.json"), JSON.stringify(settings, null, 2) + "\n");
  return root;
}

/** The model's part of one run: read the file, patch it on the sha256 it read, say so. */
const RUN: FakeAnswer[] = [
  { text: "Reading the file.", calls: [{ name: "read_file", args: { file_path: "src/stats.js" } }] },
  {
    calls: [
      {
        name: "safe_patch",
        args: { file_path: "src/stats.js", unified_diff: FIX, base_content_sha256: sha256Of(BEFORE) },
      },
    ],
  },
  { text: "median now sorts a copy." },
];

function piped(
  args: string[],
  root: string,
  env: NodeJS.ProcessEnv,
  input = "",
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: root,
    env,
    input,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const stats = (root: string): Promise<string> => fs.readFile(path.join(root, "src/stats.js"), "utf8");

describe("a newcomer's first five minutes", () => {
  it("asks with no provider flags (the project file says which endpoint), answers with single keys, and Ctrl-D keeps nothing", async () => {
    fake = await startFakeOpenAi((i) => RUN[i % RUN.length]!);
    const env = freshEnv();
    const root = await project({ provider: "openai", baseUrl: fake.url, model: "qwen2.5-coder:7b" });

    // First run: y to trusting the folder the newcomer wrote the file in (asked once, one key),
    // y (one key, no Enter) to the change, then Ctrl-D at "Keep the changes?".
    const first = onTerminal(process.execPath, [BIN, "ask", "fix median in @src/stats.js"], {
      cwd: root,
      env,
    });
    await first.waitFor(`? Trust ${root} and apply them? [y]es / [N]o: `);
    expect(first.text()).toContain("sets provider, baseUrl, which apply only in a folder you trust");
    first.write("y");
    await first.waitFor("[d]iff again: ");
    first.write("y");
    await first.waitFor("Keep the changes to src/stats.js? [Y]es / [u]ndo the whole run: ");
    expect(await stats(root)).toBe(AFTER);
    first.write("\x04");
    expect(await first.exited).toBe(1);
    expect(first.text()).toContain("median now sorts a copy.");
    expect(first.text()).toContain("No answer (end of input): undoing the run");
    expect(first.text()).toContain("On disk: src/stats.js as before the run.");
    expect(await stats(root)).toBe(BEFORE);
    expect(fake.requests[0]).toMatchObject({ model: "qwen2.5-coder:7b" });
    // No key was named and none is set: nothing, not a placeholder, goes out as the key.
    expect(fake.authorizations.every((a) => a === undefined)).toBe(true);

    // Second run: y, then y at "Keep the changes?": the change stays, exit 0.
    const second = onTerminal(process.execPath, [BIN, "ask", "fix median in @src/stats.js"], {
      cwd: root,
      env,
    });
    await second.waitFor("[d]iff again: ");
    second.write("y");
    await second.waitFor("Keep the changes to src/stats.js?");
    second.write("y");
    expect(await second.exited).toBe(0);
    expect(second.text()).toContain("Kept: src/stats.js on disk as changed.");
    expect(second.text()).not.toContain("Trust ");
    expect(await stats(root)).toBe(AFTER);
  }, 120_000);

  it("`lockstep config` says what is in force and where each came from, naming the key's variable, never its value", async () => {
    const env: NodeJS.ProcessEnv = { ...freshEnv(), OPENROUTER_API_KEY: "sk-or-secret-123" };
    const root = await project({
      provider: "openai",
      baseUrl: "https://openrouter.ai/api/v1",
      model: "qwen/qwen-2.5-coder-32b-instruct",
      apiKeyEnv: "OPENROUTER_API_KEY",
    });
    // The README's one extra step: the folder whose .lockstep.json names the endpoint is trusted.
    expect(piped(["trust"], root, env).status).toBe(0);
    const human = piped(["config"], root, { ...env, LOCKSTEP_APPROVAL: "review" });
    expect(human.status).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`provider\\s+openai\\s+${path.join(root, ".lockstep.json")}:2`));
    expect(human.stdout).toMatch(/approval\s+review\s+LOCKSTEP_APPROVAL/);
    expect(human.stdout).toMatch(/maxTurns\s+20\s+default/);
    expect(human.stdout).toContain("API key: read from OPENROUTER_API_KEY (set)");
    expect(human.stdout).toContain(`${String(env["XDG_CONFIG_HOME"])}/lockstep/config.json (none)`);
    expect(human.stdout).not.toContain("sk-or-secret-123");

    const json = piped(["config", "--json", "--model", "other"], root, env);
    expect(json.status).toBe(0);
    const parsed = JSON.parse(json.stdout) as {
      data: { settings: Record<string, { value: unknown; from: string }> };
    };
    expect(parsed.data.settings["model"]).toMatchObject({ value: "other", from: "--model" });
    expect(json.stdout).not.toContain("sk-or-secret-123");

    // The same project with the key's variable empty: an error before anything is sent, named where it was written.
    const unset = piped(["ask", "hi"], root, { ...env, OPENROUTER_API_KEY: "" });
    expect(unset.status).toBe(2);
    expect(unset.stderr).toContain(
      `"apiKeyEnv" in ${path.join(root, ".lockstep.json")}:5 names OPENROUTER_API_KEY, which is not set or empty`,
    );
  }, 60_000);

  it("a flag's mistake names the flag: --provider openai without --model is a usage error", async () => {
    const root = await project(undefined);
    const run = piped(
      ["ask", "--provider", "openai", "--base-url", "http://127.0.0.1:11434/v1", "hi"],
      root,
      freshEnv(),
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("--provider (openai) needs the endpoint's model named: add --model NAME");
  });

  it("a malformed project file is named with its line", async () => {
    const root = await project(undefined);
    await fs.writeFile(
      path.join(root, ".lockstep.json"),
      '{\n  "provider": "openai",\n  "model": "m"\n  "baseUrl": "http://127.0.0.1:1/v1"\n}\n',
    );
    const run = piped(["ask", "hi"], root, freshEnv());
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`${path.join(root, ".lockstep.json")}:4:3: not valid JSON`);
  });

  it("nothing listening at the endpoint: says so, with the URL and how to start Ollama", async () => {
    const closed = await startFakeOpenAi([{ text: "never" }]);
    const url = closed.url;
    await closed.close();
    const root = await project({ provider: "openai", baseUrl: url, model: "qwen2.5-coder:7b" });
    const env = freshEnv();
    expect(piped(["trust"], root, env).status).toBe(0);
    const run = piped(["ask", "--yes", "hi"], root, env);
    expect(run.status).toBe(1);
    expect(run.stdout + run.stderr).toContain(`Nothing answered at ${url}`);
    expect(run.stdout + run.stderr).toContain("ollama serve");
  }, 60_000);

  it("apply-patch on a terminal: a summary with a coloured diff, a refusal's reason, the paste hint; exit 0 and 1", async () => {
    const env = freshEnv();
    const root = await project(undefined);
    const refused = onTerminal(
      process.execPath,
      [BIN, "apply-patch", "src/stats.js", "--diff", "stray.diff"],
      { cwd: root, env },
    );
    expect(await refused.exited).toBe(1);
    expect(refused.text()).toMatch(/^✘ Invalid Diff: /m);
    expect(refused.text()).toContain("lockstep read src/stats.js prints it");
    expect(refused.text()).not.toContain('{"ok"');

    const applied = onTerminal(process.execPath, [BIN, "apply-patch", "src/stats.js", "--diff", "fix.diff"], {
      cwd: root,
      env,
    });
    expect(await applied.exited).toBe(0);
    expect(applied.text()).toMatch(/^✔ Patch applied successfully\./m);
    expect(applied.raw()).toContain("\x1b[32m+  const sorted = [...values].sort((a, b) => a - b);\x1b[0m");
    expect(applied.text()).toMatch(/now: src\/stats\.js {2}sha256 [0-9a-f]{12}…/);
    expect(await stats(root)).toBe(AFTER);

    // NO_COLOR: the same summary without colours.
    const noColor = onTerminal(process.execPath, [BIN, "read", "src/stats.js"], {
      cwd: root,
      env: { ...env, NO_COLOR: "1" },
    });
    expect(await noColor.exited).toBe(0);
    expect(noColor.raw()).not.toContain("\x1b[");
    expect(noColor.text()).toContain(`src/stats.js  sha256 ${sha256Of(AFTER).slice(0, 12)}… · 5 lines`);

    // The diff pasted on the terminal: the command says how to end the input.
    await fs.writeFile(path.join(root, "src/stats.js"), BEFORE);
    const pasted = onTerminal(process.execPath, [BIN, "apply-patch", "src/stats.js"], { cwd: root, env });
    await pasted.waitFor("Paste the diff, then press Ctrl-D on a new line");
    pasted.write(FIX.replace(/\n/g, "\r"));
    pasted.write("\x04");
    expect(await pasted.exited).toBe(0);
    expect(await stats(root)).toBe(AFTER);
  }, 120_000);

  it("apply-patch through a pipe: the JSON envelope; exit 1 refused, 0 applied, 2 for an empty input", async () => {
    const env = freshEnv();
    const root = await project(undefined);
    const refused = piped(["apply-patch", "src/stats.js"], root, env, STRAY);
    expect(refused.status).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ ok: false, error: { code: "invalid_diff" } });

    const applied = piped(["apply-patch", "src/stats.js"], root, env, FIX);
    expect(applied.status).toBe(0);
    expect(JSON.parse(applied.stdout)).toMatchObject({
      ok: true,
      data: { applied: true, latest_file_state: { sha256: sha256Of(AFTER) } },
    });

    const empty = piped(["apply-patch", "src/stats.js"], root, env, "");
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain("standard input was empty");
    expect(JSON.parse(empty.stdout)).toMatchObject({ ok: false, error: { code: "invalid_argument" } });
    expect(await stats(root)).toBe(AFTER);
  }, 60_000);
});
