// The approval of a call of an MCP server's tool: asked per call; "always" for the tool or
// the server holds for the session; approval auto covers only a server the user trusts.
import { describe, expect, it } from "vitest";
import { callApprover, type CallDecision, type CallRequest } from "../../server/src/review/call-approval.js";
import type { ApprovalMode } from "../../server/src/review/policy.js";

const call = (tool: string, server = "git", trusted = false): CallRequest => ({
  name: `mcp__${server}__${tool}`,
  server,
  tool,
  args: {},
  trusted,
});

function approver(mode: ApprovalMode, answers: CallDecision[]) {
  const session = { alwaysAllowed: new Set<string>() };
  const asked: string[] = [];
  const approve = callApprover(
    session,
    () => mode,
    () => async (request) => (asked.push(request.name), answers.shift() ?? "reject"),
  );
  return { approve: (r: CallRequest) => approve(r, new AbortController().signal), asked };
}

describe("approving MCP tool calls", () => {
  it("asks per call, and 'always allow this tool' holds for that tool only", async () => {
    const a = approver("ask", ["always_tool", "apply", "reject"]);
    expect(await a.approve(call("log"))).toBe(true);
    expect(await a.approve(call("log"))).toBe(true);
    expect(await a.approve(call("push"))).toBe(true);
    expect(await a.approve(call("push"))).toBe(false);
    expect(a.asked).toEqual(["mcp__git__log", "mcp__git__push", "mcp__git__push"]);
  });

  it("'always allow this server' covers the server's other tools, not another server's", async () => {
    const a = approver("ask", ["always_server", "apply"]);
    expect(await a.approve(call("log"))).toBe(true);
    expect(await a.approve(call("push"))).toBe(true);
    expect(await a.approve(call("query", "db"))).toBe(true);
    expect(a.asked).toEqual(["mcp__git__log", "mcp__db__query"]);
  });

  it("approval auto asks still, unless the user's file trusts the server", async () => {
    const a = approver("auto", ["reject"]);
    expect(await a.approve(call("push"))).toBe(false);
    expect(await a.approve(call("push", "git", true))).toBe(true);
    expect(a.asked).toEqual(["mcp__git__push"]);
  });

  it("runs nothing, undecided, when the door cannot ask (the model hears no rejection)", async () => {
    const approve = callApprover(
      { alwaysAllowed: new Set() },
      () => "ask",
      () => undefined,
    );
    expect(await approve(call("log"), new AbortController().signal)).toBe("undecided");
  });
});
