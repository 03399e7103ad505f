// The approval questions in a real Neovim 0.7.2 (headless) with the plugin in clients/neovim,
// against the fake model: "Reject and say why" reaches the model's next request; "Stop the run"
// ends the run with no further model request; a command's question shows its line, where it
// runs, the sandbox and what "always" allows in the floating window; an MCP call's shows the
// server, the tool and the arguments, a key redacted. fixtures/nvim/approve-driver.lua plays them.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lastResponses, patchCall, replaceLineDiff, turn } from "../support/agent-scripts.js";
import type { FakeGemini, FakeScript } from "../support/fake-gemini.js";
import { withFakeModel } from "./fixtures/fake-model-env.js";
import { REPO, headlessNvim, nvimLogs, once, requireBuild, requireEditor } from "./fixtures/harness.js";
import { TEST_TIMEOUT_MS, playScenario, type ScenarioResult } from "./fixtures/scenario-checks.js";
import { CALC, FAKE_KEY, NEW_LINE, OLD_LINE, sha256Hex } from "./fixtures/scenarios.js";

const TOOLS = path.join(REPO, "test", "mcp", "fixtures", "tools-mcp-server.mjs");

interface Result extends ScenarioResult {
  chat?: string[];
  buffer?: ScenarioResult["buffer"];
  disk?: string;
  made?: string | null;
}

const ready = once(() => {
  requireEditor("nvim", ["--version"], "Install Neovim 0.7.2 or newer (Debian: apt-get install neovim)");
  requireBuild();
});

/** Plays `picks` (and `reason`) against the fake model's `script`; `config`: the user's settings file. */
async function play(
  script: FakeScript,
  picks: string[],
  extra: { reason?: string; config?: Record<string, unknown> } = {},
): Promise<{ r: Result; requests: number; fake: FakeGemini }> {
  ready();
  const { result, fake } = await withFakeModel(script, extra.config, async (env, fake) => {
    const r = await playScenario<Result>(
      { ...headlessNvim("approve-driver.lua"), logs: nvimLogs },
      {
        scenario: "approve",
        settings: { approval: "ask" },
        file: "calc.py",
        prompt: "swap the factors",
        picks,
        ...(extra.reason ? { reason: extra.reason } : {}),
      },
      env,
    );
    return { r, requests: fake.requests.length };
  });
  return { ...result, fake };
}

const swap = () =>
  turn({
    calls: [patchCall("calc.py", replaceLineDiff("calc.py", CALC, OLD_LINE, NEW_LINE), sha256Hex(CALC))],
  });
const approvals = (r: Result) => r.prompts.filter((p) => p.kind === "lockstep.approval");

describe("Neovim 0.7.2: the approval question's answers", { timeout: TEST_TIMEOUT_MS }, () => {
  it("Reject and say why: the reason reaches the model's next request; the buffer is unchanged", async () => {
    const reason = "keep w first; rename h to height instead";
    const { r, fake } = await play([swap(), turn({ text: ["Understood."] })], ["Reject and say why"], {
      reason,
    });
    expect(approvals(r)).toHaveLength(1);
    expect(r.prompts.find((p) => p.kind === "input")?.prompt).toMatch(/Why not/);
    expect(fake.requests).toHaveLength(2);
    const [answer] = lastResponses(fake.requests[1]);
    expect(answer?.response).toMatchObject({ ok: false, error: { code: "rejected" } });
    expect(answer?.response.error?.message).toContain(reason);
    expect(r.buffer?.text).toBe(CALC);
    expect(r.chat?.at(-1)).toMatch(/^\[done\] done/);
  });

  it("Stop the run: no further model request, the buffer unchanged, the chat says it stopped", async () => {
    const { r, requests } = await play([swap(), turn({ text: ["should not be asked"] })], ["Stop the run"]);
    expect(approvals(r)).toHaveLength(1);
    expect(requests).toBe(1);
    expect(r.buffer?.text).toBe(CALC);
    expect(r.disk).toBe(CALC);
    expect(r.chat?.at(-1)).toMatch(/^\[done\] cancelled/);
    expect(r.chat?.join("\n")).toContain("Stopped");
  });
});

describe("Neovim 0.7.2: a command's and an MCP call's question", { timeout: TEST_TIMEOUT_MS }, () => {
  it("shows the command line, where it runs, the sandbox and what always allows; Run once runs it", async () => {
    const { r } = await play(
      [
        turn({ calls: [{ name: "run_command", args: { command: "touch made.txt" } }] }),
        turn({ text: ["Made."] }),
      ],
      ["Run once"],
    );
    const [q] = approvals(r);
    expect(q?.items).toEqual([
      "Run once",
      "Always allow `touch made.txt` this session",
      "Reject",
      "Reject and say why",
      "Stop the run",
      "Show it all",
    ]);
    expect(q?.prompt).toBe("lockstep wants to run: touch made.txt");
    expect(q?.shown).toEqual(
      expect.arrayContaining([
        "run_command in the project root:",
        "  $ touch made.txt",
        "Always would allow: `touch made.txt` for this session",
      ]),
    );
    expect(q?.shown?.some((l) => /^(Sandboxed|Not sandboxed)/.test(l))).toBe(true);
    expect(r.made).toBe("");
  });

  it("Reject and say why for a command: the reason reaches the model; the command does not run", async () => {
    const reason = "use make check, not touch";
    const { r, fake } = await play(
      [
        turn({ calls: [{ name: "run_command", args: { command: "touch made.txt" } }] }),
        turn({ text: ["Understood."] }),
      ],
      ["Reject and say why"],
      { reason },
    );
    expect(approvals(r)).toHaveLength(1);
    expect(fake.requests).toHaveLength(2);
    const [answer] = lastResponses(fake.requests[1]);
    expect(answer?.response).toMatchObject({ ok: false, error: { code: "rejected" } });
    expect(answer?.response.error?.message).toContain(reason);
    expect(r.made ?? null).toBeNull();
  });

  it("shows an MCP call's server, tool and arguments, a key redacted", async () => {
    const token = `ghp_${"b".repeat(36)}`;
    const { r } = await play(
      [
        turn({ calls: [{ name: "mcp__docs__shout", args: { text: `with ${token} and ${FAKE_KEY}` } }] }),
        turn({ text: ["Shouted."] }),
      ],
      ["Apply"],
      { config: { mcpServers: { docs: { command: process.execPath, args: [TOOLS] } } } },
    );
    const [q] = approvals(r);
    expect(q?.items).toEqual([
      "Apply",
      "Always allow mcp__docs__shout this session",
      "Always allow server docs this session",
      "Reject",
      "Reject and say why",
      "Stop the run",
      "Show it all",
    ]);
    expect(q?.prompt).toBe("lockstep wants to call shout on the MCP server docs");
    expect(q?.shown).toEqual(
      expect.arrayContaining(["MCP server docs, tool shout (mcp__docs__shout)", "Arguments:"]),
    );
    const shown = (q?.shown ?? []).join("\n");
    expect(shown).toContain('"text": "with [redacted] and [redacted]"');
    expect(shown).not.toContain(token);
    expect(shown).not.toContain(FAKE_KEY);
    expect(r.chat?.join("\n")).toContain("Shouted.");
  });
});
