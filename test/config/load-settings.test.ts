// loadSettings: defaults < user file < project file < LOCKSTEP_* < flags < editor,
// the origin of each key, and every mistake named where it was written. The project's folder is
// trusted here (in a temporary state directory), so its file applies in full; what an untrusted
// folder's file may set is project-trust.test.ts.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { envVariableOf, loadSettings } from "../../server/src/config/load-settings.js";
import { addTrust } from "../../server/src/config/trust.js";
import { tempDir } from "../support/workspace-fixture.js";

function setup(files: { user?: string; project?: string }): {
  root: string;
  env: NodeJS.ProcessEnv;
  userFile: string;
} {
  const home = tempDir("lockstep-home-");
  const root = tempDir("lockstep-root-");
  const userFile = path.join(home, "xdg", "lockstep", "config.json");
  if (files.user !== undefined) {
    mkdirSync(path.dirname(userFile), { recursive: true });
    writeFileSync(userFile, files.user);
  }
  if (files.project !== undefined) writeFileSync(path.join(root, ".lockstep.json"), files.project);
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, "xdg"),
    XDG_STATE_HOME: path.join(home, "state"),
  };
  addTrust(root, env);
  return { root, env, userFile };
}

const errors = (problems: { severity: string; message: string }[]) =>
  problems.filter((p) => p.severity === "error").map((p) => p.message);

describe("loadSettings", () => {
  it("layers the sources, each over the one before, and says where each key came from", () => {
    const { root, env, userFile } = setup({
      user: JSON.stringify({ provider: "openai", model: "user-model", approval: "review", maxTurns: 7 }),
      project: JSON.stringify({ model: "project-model", baseUrl: "http://127.0.0.1:11434/v1" }, null, 2),
    });
    const loaded = loadSettings({
      root,
      env: { ...env, LOCKSTEP_APPROVAL: "auto", LOCKSTEP_TOOLS: "false" },
      flags: { approval: "ask", transcript: undefined },
    });
    expect(loaded.settings).toMatchObject({
      provider: "openai",
      model: "project-model",
      baseUrl: "http://127.0.0.1:11434/v1",
      approval: "ask",
      tools: false,
      maxTurns: 7,
      debug: false,
    });
    expect(loaded.origins.provider).toEqual({ kind: "user", file: userFile, line: 1 });
    expect(loaded.origins.model).toEqual({
      kind: "project",
      file: path.join(root, ".lockstep.json"),
      line: 2,
    });
    expect(loaded.origins.tools).toEqual({ kind: "env", variable: "LOCKSTEP_TOOLS" });
    expect(loaded.origins.approval).toEqual({ kind: "flag", flag: "--approval" });
    expect(loaded.origins.debug).toEqual({ kind: "default" });
    expect(errors(loaded.problems)).toEqual([]);
  });

  it("falls back to ~/.config when XDG_CONFIG_HOME is unset", () => {
    const { root, env } = setup({});
    mkdirSync(path.join(env["HOME"]!, ".config", "lockstep"), { recursive: true });
    writeFileSync(path.join(env["HOME"]!, ".config", "lockstep", "config.json"), '{"approval": "review"}');
    const loaded = loadSettings({
      root,
      env: { HOME: env["HOME"], XDG_STATE_HOME: env["XDG_STATE_HOME"], GEMINI_API_KEY: "k" },
    });
    expect(loaded.settings.approval).toBe("review");
    expect(loaded.files.user).toBe(path.join(env["HOME"]!, ".config", "lockstep", "config.json"));
  });

  it("names the file and line of malformed JSON", () => {
    const { root, env } = setup({ project: '{\n  "provider": "openai",\n  "model": "m",\n}\n' });
    const loaded = loadSettings({ root, env: { ...env, GEMINI_API_KEY: "k" } });
    expect(errors(loaded.problems)).toEqual([
      expect.stringMatching(
        new RegExp(`^${path.join(root, ".lockstep.json").replace(/[.]/g, "\\.")}:4:1: not valid JSON`),
      ),
    ]);
  });

  it("names a bad value where it was written, and keeps the value from below", () => {
    const { root, env, userFile } = setup({ user: '{\n"approval": "sometimes"\n}' });
    const loaded = loadSettings({
      root,
      env: { ...env, GEMINI_API_KEY: "k", LOCKSTEP_MAX_TURNS: "many" },
      flags: { provider: "mistral" },
    });
    expect(loaded.settings.approval).toBe("ask");
    expect(errors(loaded.problems)).toEqual([
      expect.stringContaining(`"approval" in ${userFile}:2:`),
      expect.stringContaining("LOCKSTEP_MAX_TURNS:"),
      expect.stringContaining("--provider:"),
    ]);
  });

  it("warns about an unknown key without stopping", () => {
    const { root, env } = setup({ project: '{"modle": "x"}' });
    const loaded = loadSettings({ root, env: { ...env, GEMINI_API_KEY: "k" } });
    expect(loaded.problems).toEqual([
      { severity: "warning", message: expect.stringContaining('"modle" in') as string },
    ]);
  });

  it("asks for the model in the words of the source that chose openai", () => {
    const { root, env } = setup({ project: '{"provider": "openai", "baseUrl": "http://127.0.0.1:1234/v1"}' });
    expect(errors(loadSettings({ root, env, flags: { provider: "openai" } }).problems)).toEqual([
      expect.stringMatching(/^--provider \(openai\) needs .*: add --model NAME/),
    ]);
    expect(errors(loadSettings({ root, env }).problems)).toEqual([
      expect.stringContaining(`add "model" to ${path.join(root, ".lockstep.json")} (or --model)`),
    ]);
  });

  it("is an error when apiKeyEnv names a variable that is empty or unset, naming the variable, never a value", () => {
    const { root, env } = setup({
      project:
        '{"provider": "openai", "model": "m", "baseUrl": "https://openrouter.ai/api/v1", "apiKeyEnv": "OPENROUTER_API_KEY"}',
    });
    expect(errors(loadSettings({ root, env: { ...env, OPENROUTER_API_KEY: "" } }).problems)).toEqual([
      expect.stringContaining("names OPENROUTER_API_KEY, which is not set or empty"),
    ]);
    const ok = loadSettings({ root, env: { ...env, OPENROUTER_API_KEY: "sk-secret" } });
    expect(errors(ok.problems)).toEqual([]);
    expect(ok.key).toEqual({ variables: ["OPENROUTER_API_KEY"], found: "OPENROUTER_API_KEY", needed: true });
    expect(JSON.stringify(ok)).not.toContain("sk-secret");
  });

  it("warns, before any request, that no key will be sent to a hosted endpoint nobody named a key for", () => {
    const { root, env } = setup({
      project: '{"provider": "openai", "model": "m", "baseUrl": "https://openrouter.ai/api/v1"}',
    });
    expect(loadSettings({ root, env: { ...env, OPENROUTER_API_KEY: "sk" } }).problems).toEqual([
      {
        severity: "warning",
        key: "apiKeyEnv",
        message: expect.stringMatching(
          /^no API key will be sent to https:\/\/openrouter\.ai\/api\/v1 .*set apiKeyEnv \(--api-key-env\)/,
        ) as string,
      },
    ]);
    const local = setup({
      project: '{"provider": "openai", "model": "m", "baseUrl": "http://192.168.1.20:8080/v1"}',
    });
    expect(loadSettings({ root: local.root, env: local.env }).problems).toEqual([]);
  });

  it("needs no key for a local endpoint nobody named a key for, nor for a recorded session", () => {
    const { root, env } = setup({
      project: '{"provider": "openai", "model": "m", "baseUrl": "http://127.0.0.1:11434/v1"}',
    });
    expect(errors(loadSettings({ root, env }).problems)).toEqual([]);
    expect(errors(loadSettings({ root: setup({}).root, env }).problems)).toEqual([
      expect.stringContaining("No API key for provider gemini: set GEMINI_API_KEY or GOOGLE_API_KEY"),
    ]);
    expect(
      errors(loadSettings({ root: setup({}).root, env, flags: { replay: "demo/session.json" } }).problems),
    ).toEqual([]);
  });

  it("resolves paths from a file against the file's directory, and the editor's settings go over all", () => {
    const { root, env, userFile } = setup({
      user: '{"transcript": "notes/t.md"}',
      project: '{"approval": "review"}',
    });
    const loaded = loadSettings({ root, env: { ...env, GEMINI_API_KEY: "k" }, editor: { approval: "auto" } });
    expect(loaded.settings.transcript).toBe(path.join(path.dirname(userFile), "notes/t.md"));
    expect(loaded.settings.approval).toBe("auto");
    expect(loaded.origins.approval).toEqual({ kind: "editor" });
  });

  it("has a LOCKSTEP_ variable for every key", () => {
    expect(envVariableOf("apiKeyEnv")).toBe("LOCKSTEP_API_KEY_ENV");
    expect(envVariableOf("baseUrl")).toBe("LOCKSTEP_BASE_URL");
  });
});
