// The approval questions in a real Emacs 28 + Eglot 1.9 (batch mode) with clients/emacs: a
// command's question shows its line, where it runs, the sandbox and what "always" allows in the
// buffer beside the minibuffer question; an MCP call's shows the server, the tool and the
// arguments, a key redacted; "Reject and say why" reaches the model; "Stop the run" ends it.
// fixtures/emacs/approve-driver.el plays them.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lastResponses, patchCall, replaceLineDiff, turn } from "../support/agent-scripts.js";
import type { FakeGemini, FakeScript } from "../support/fake-gemini.js";
import { emacsCommand, requireEmacs } from "./fixtures/emacs.js";
import { withFakeModel } from "./fixtures/fake-model-env.js";
import { REPO } from "./fixtures/harness.js";
import { TEST_TIMEOUT_MS, playScenario, type ScenarioResult } from "./fixtures/scenario-checks.js";
import { CALC, FAKE_KEY, NEW_LINE, OLD_LINE, sha256Hex } from "./fixtures/scenarios.js";

const TOOLS = path.join(REPO, "test", "mcp", "fixtures", "tools-mcp-server.mjs");

interface Result extends ScenarioResult {
  chat?: string[];
  made?: string | null;
}

/** Plays `pick` (and `reason`) against the fake model's `script`; `config`: the user's settings file. */
async function play(
  script: FakeScript,
  pick: string,
  extra: { reason?: string; config?: Record<string, unknown> } = {},
): Promise<{ r: Result; fake: FakeGemini }> {
  requireEmacs();
  const { result: r, fake } = await withFakeModel(script, extra.config, (env) =>
    playScenario<Result>(
      emacsCommand("approve-driver.el"),
      {
        scenario: "approve",
        settings: { approval: "ask" },
        modes: ["python-mode"],
        file: "calc.py",
        prompt: "swap the factors",
        select: { "lockstep.approval": pick },
        ...(extra.reason ? { reason: extra.reason } : {}),
      },
      env,
    ),
  );
  return { r, fake };
}

const swap = () =>
  turn({
    calls: [patchCall("calc.py", replaceLineDiff("calc.py", CALC, OLD_LINE, NEW_LINE), sha256Hex(CALC))],
  });
const approvals = (r: Result) => r.prompts.filter((p) => p.kind === "lockstep.approval");

describe("Emacs 28 + Eglot 1.9: the approval question's answers", { timeout: TEST_TIMEOUT_MS }, () => {
  it("Reject and say why: the reason reaches the model's next request; the buffer is unchanged", async () => {
    const reason = "keep w first; rename h to height instead";
    const { r, fake } = await play([swap(), turn({ text: ["Understood."] })], "Reject and say why", {
      reason,
    });
    expect(approvals(r)).toHaveLength(1);
    expect(fake.requests).toHaveLength(2);
    const [answer] = lastResponses(fake.requests[1]);
    expect(answer?.response.error?.message).toContain(reason);
    expect(r.buffer?.text).toBe(CALC);
  });

  it("Stop the run: no further model request, the buffer unchanged", async () => {
    const { r, fake } = await play([swap(), turn({ text: ["should not be asked"] })], "Stop the run");
    expect(approvals(r)).toHaveLength(1);
    expect(fake.requests).toHaveLength(1);
    expect(r.buffer?.text).toBe(CALC);
    expect(r.chat?.join("\n")).toMatch(/\[done\] cancelled/);
  });
});

describe("Emacs 28 + Eglot 1.9: a command's and an MCP call's question", { timeout: TEST_TIMEOUT_MS }, () => {
  it("shows the command line, where it runs, the sandbox and what always allows; Run once runs it", async () => {
    const { r } = await play(
      [
        turn({ calls: [{ name: "run_command", args: { command: "touch made.txt" } }] }),
        turn({ text: ["Made."] }),
      ],
      "Run once",
    );
    const [q] = approvals(r);
    expect(q?.items).toEqual([
      "Run once",
      "Always allow `touch made.txt` this session",
      "Reject",
      "Reject and say why",
      "Stop the run",
    ]);
    expect(q?.prompt).toBe("lockstep wants to run: touch made.txt ");
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

  it("shows an MCP call's server, tool and arguments, a key redacted", async () => {
    const token = `ghp_${"c".repeat(36)}`;
    const { r } = await play(
      [
        turn({ calls: [{ name: "mcp__docs__shout", args: { text: `with ${token} and ${FAKE_KEY}` } }] }),
        turn({ text: ["Shouted."] }),
      ],
      "Apply",
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
    ]);
    expect(q?.prompt).toBe("lockstep wants to call shout on the MCP server docs ");
    const shown = (q?.shown ?? []).join("\n");
    expect(shown).toContain("MCP server docs, tool shout (mcp__docs__shout)");
    expect(shown).toContain('"text": "with [redacted] and [redacted]"');
    expect(shown).not.toContain(token);
    expect(shown).not.toContain(FAKE_KEY);
    expect(r.chat?.join("\n")).toContain("Shouted.");
  });

  it("Reject and say why for an MCP call: the reason reaches the model; the tool is not called", async () => {
    const reason = "whisper it instead";
    const { r, fake } = await play(
      [
        turn({ calls: [{ name: "mcp__docs__shout", args: { text: "loud" } }] }),
        turn({ text: ["Understood."] }),
      ],
      "Reject and say why",
      { reason, config: { mcpServers: { docs: { command: process.execPath, args: [TOOLS] } } } },
    );
    expect(approvals(r)).toHaveLength(1);
    expect(fake.requests).toHaveLength(2);
    const [answer] = lastResponses(fake.requests[1]);
    expect(answer?.response).toMatchObject({ ok: false, error: { code: "rejected" } });
    expect(answer?.response.error?.message).toContain(reason);
    expect(r.chat?.join("\n")).not.toContain("LOUD");
  });
});
