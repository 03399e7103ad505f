// `lockstep config` shows for each key left to its default the value in use (the provider's
// model, where the sessions go, which variables hold the key) and that it is the default, never
// "(unset)"; and warns when provider, baseUrl and model were set in different places.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/workspace-fixture.js";

const BIN = path.resolve("bin/lockstep.js");

function config(
  project: Record<string, unknown> | undefined,
  extraEnv: Record<string, string> = {},
  json = false,
) {
  const root = tempDir("lockstep-config-in-use-");
  const home = tempDir("lockstep-config-in-use-home-");
  if (project) writeFileSync(path.join(root, ".lockstep.json"), JSON.stringify(project));
  mkdirSync(path.join(home, "state"), { recursive: true });
  const env = {
    PATH: process.env["PATH"],
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, "config"),
    XDG_STATE_HOME: path.join(home, "state"),
    ...extraEnv,
  };
  spawnSync(process.execPath, [BIN, "trust", root], { env, encoding: "utf8", timeout: 60_000 });
  const r = spawnSync(process.execPath, [BIN, "config", "--root", root, ...(json ? ["--json"] : [])], {
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { out: r.stdout, home };
}

const row = (out: string, key: string): string =>
  out.split("\n").find((l) => l.startsWith(`  ${key} `)) ?? "";

describe("lockstep config", () => {
  it("shows each default's value in use, and that it is the default", () => {
    const { out, home } = config(undefined);
    expect(out).not.toContain("(unset)");
    expect(row(out, "model")).toMatch(/^\s+model\s+gemini-2\.5-flash\s+default$/);
    expect(row(out, "baseUrl")).toMatch(/gemini's own service\s+default$/);
    expect(row(out, "apiKeyEnv")).toMatch(/GEMINI_API_KEY or GOOGLE_API_KEY\s+default$/);
    expect(row(out, "sessionsDir")).toContain(path.join(home, "state", "lockstep"));
    expect(row(out, "sessionsDir")).toMatch(/default$/);
    expect(out).not.toContain("different places");
  });

  it("a local provider's address and the JSON form's in_use", () => {
    const { out } = config({ provider: "ollama", model: "qwen2.5-coder:7b" }, {}, true);
    const settings = (
      JSON.parse(out) as {
        data: { settings: Record<string, { value: unknown; in_use?: string; from: string }> };
      }
    ).data.settings;
    expect(settings["baseUrl"]).toMatchObject({
      value: null,
      in_use: "http://localhost:11434/v1",
      from: "default",
    });
    expect(settings["model"]).toMatchObject({ value: "qwen2.5-coder:7b" });
    expect(settings["model"]!.in_use).toBeUndefined();
  });

  it("warns when provider and model come from different places", () => {
    const { out } = config(
      { provider: "openai", baseUrl: "http://127.0.0.1:18080/v1" },
      { LOCKSTEP_MODEL: "gemini-2.5-pro" },
    );
    const warning = out.split("\n").find((l) => l.includes("different places")) ?? "";
    expect(warning).toMatch(/^! /);
    expect(warning).toContain("provider openai (");
    expect(warning).toContain("model gemini-2.5-pro (LOCKSTEP_MODEL)");
  });
});
