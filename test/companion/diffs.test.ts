// gemini-cli's diffing contract against a real server and the test editor:
// openDiff stages the proposal in the editor, the user decides there, the agent
// hears ide/diffAccepted with exactly the buffer's text, or ide/diffRejected.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { CodeAction } from "vscode-languageserver-protocol";
import { AgentClient, companionFacts, readDiscovery, serverCaughtUp } from "../support/companion-client.js";
import { cleanup, launch, type StartOptions, type TestClient } from "../support/lsp-client.js";

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-diffs-")));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(cleanup);

const BEFORE = [
  "export function add(a: number, b: number) {",
  "  return a + b;",
  "}",
  "",
  ...Array.from({ length: 12 }, (_, i) => `// filler ${i}`),
  "",
  "export const name = 'old';",
  "",
].join("\n");
const PROPOSED = BEFORE.replace("return a + b;", "return a + b + 0;").replace("'old'", "'new'");

async function session(
  options: Omit<StartOptions, "root">,
): Promise<{ client: TestClient; agent: AgentClient; file: string }> {
  const client = await launch({ "src/math.ts": BEFORE }, { ...options, env: { TMPDIR: tmp } });
  const port = Number((await companionFacts(client))["port"]);
  const { info } = await readDiscovery(tmp, process.pid, port);
  return {
    client,
    agent: await AgentClient.connect(port, info.authToken, "gemini-cli-mcp-client"),
    file: client.path("src/math.ts"),
  };
}

/** A code action of the staged proposal, once its hunks are shown: for the whole file, or (`line`) for the hunk there. */
async function stagedAction(
  client: TestClient,
  verb: "Accept" | "Reject",
  line?: number,
): Promise<CodeAction> {
  await client.waitForNotification(
    "textDocument/publishDiagnostics",
    (p) => ((p as { diagnostics: unknown[] }).diagnostics ?? []).length > 0,
  );
  const at = line === undefined ? undefined : { start: { line, character: 0 }, end: { line, character: 0 } };
  const actions = (await client.codeActions("src/math.ts", at)) as CodeAction[];
  const title =
    line === undefined
      ? `lockstep: ${verb} all proposed changes in src/math.ts`
      : `lockstep: ${verb} this change`;
  const action = actions.find((a) => a.title === title);
  if (!action) throw new Error(`no "${title}" action among ${JSON.stringify(actions.map((a) => a.title))}`);
  return action;
}

describe("openDiff through the editor's staged changes (Helix: code actions)", () => {
  it("takes one hunk and not the other: ide/diffAccepted carries exactly the text with the hunk taken", async () => {
    const { client, agent, file } = await session({ style: "helix" });
    await client.open("src/math.ts");
    await serverCaughtUp(client);
    await agent.call("openDiff", { filePath: file, newContent: PROPOSED });
    await client.runCodeAction(await stagedAction(client, "Accept", 1));
    expect(agent.notes.filter((n) => n.method.startsWith("ide/diff"))).toEqual([]);
    await client.runCodeAction(
      await stagedAction(client, "Reject", BEFORE.split("\n").indexOf("export const name = 'old';")),
    );
    const taken = BEFORE.replace("return a + b;", "return a + b + 0;");
    expect((await agent.waitFor("ide/diffAccepted")).params).toEqual({ filePath: file, content: taken });
    expect(client.buffer("src/math.ts")?.text).toBe(taken);
    await agent.close();
  });

  it("answers at once, and ide/diffAccepted carries the buffer's text once the user applies it", async () => {
    const { client, agent, file } = await session({ style: "helix" });
    await client.open("src/math.ts");
    await serverCaughtUp(client);
    expect(await agent.call("openDiff", { filePath: file, newContent: PROPOSED })).toEqual({
      isError: false,
      text: "",
    });
    expect(agent.notes.filter((n) => n.method.startsWith("ide/diff"))).toEqual([]);
    await client.runCodeAction(await stagedAction(client, "Accept"));
    const accepted = await agent.waitFor("ide/diffAccepted");
    expect(accepted.params).toEqual({ filePath: file, content: PROPOSED });
    expect(client.buffer("src/math.ts")?.text).toBe(PROPOSED);
    await agent.close();
  });

  it("sends ide/diffRejected when the user rejects, and the buffer keeps its text", async () => {
    const { client, agent, file } = await session({ style: "helix" });
    await client.open("src/math.ts");
    await serverCaughtUp(client);
    await agent.call("openDiff", { filePath: file, newContent: PROPOSED });
    await client.runCodeAction(await stagedAction(client, "Reject"));
    expect((await agent.waitFor("ide/diffRejected")).params).toEqual({ filePath: file });
    expect(agent.notes.some((n) => n.method === "ide/diffAccepted")).toBe(false);
    expect(client.buffer("src/math.ts")?.text).toBe(BEFORE);
    await agent.close();
  });

  it("closeDiff withdraws the staged change and answers the proposal as JSON {content}; no notification follows", async () => {
    const { client, agent, file } = await session({ style: "helix" });
    await client.open("src/math.ts");
    await serverCaughtUp(client);
    await agent.call("openDiff", { filePath: file, newContent: PROPOSED });
    await stagedAction(client, "Accept");
    const closed = await agent.call("closeDiff", { filePath: file, suppressNotification: true });
    expect(closed.isError).toBe(false);
    expect(JSON.parse(closed.text)).toEqual({ content: PROPOSED });
    await client.waitForNotification(
      "textDocument/publishDiagnostics",
      (p) => (p as { diagnostics: unknown[] }).diagnostics.length === 0,
    );
    expect(await client.codeActions("src/math.ts")).not.toContainEqual(
      expect.objectContaining({ title: expect.stringMatching(/proposed changes/) }),
    );
    expect(JSON.parse((await agent.call("closeDiff", { filePath: file })).text)).toEqual({ content: null });
    expect(agent.notes.filter((n) => n.method.startsWith("ide/diff"))).toEqual([]);
    expect(client.buffer("src/math.ts")?.text).toBe(BEFORE);
    await agent.close();
  });

  it("a newer openDiff for the same file replaces the older one, whose caller hears a rejection", async () => {
    const { client, agent, file } = await session({ style: "helix" });
    await client.open("src/math.ts");
    await serverCaughtUp(client);
    await agent.call("openDiff", { filePath: file, newContent: PROPOSED });
    const second = BEFORE.replace("'old'", "'newer'");
    await agent.call("openDiff", { filePath: file, newContent: second });
    expect((await agent.waitFor("ide/diffRejected")).params).toEqual({ filePath: file });
    expect(JSON.parse((await agent.call("closeDiff", { filePath: file })).text)).toEqual({ content: second });
    await agent.close();
  });
});

describe("openDiff and what the editor really did", () => {
  it("waits for eglot's late didChange and tells the agent the text the buffer then reports", async () => {
    const { client, agent, file } = await session({ style: "eglot" });
    await client.open("src/math.ts");
    await serverCaughtUp(client);
    await agent.call("openDiff", { filePath: file, newContent: PROPOSED });
    await client.runCodeAction(await stagedAction(client, "Accept"));
    expect((await agent.waitFor("ide/diffAccepted", () => true, 8000)).params).toEqual({
      filePath: file,
      content: PROPOSED,
    });
    expect(client.buffer("src/math.ts")?.text).toBe(PROPOSED);
    await agent.close();
  });

  it(
    "an editor that answers applied and applies nothing: the agent hears the buffer as it is",
    { timeout: 20_000 },
    async () => {
      const { client, agent, file } = await session({ style: "helix" });
      await client.open("src/math.ts");
      await serverCaughtUp(client);
      client.lies = 1;
      await agent.call("openDiff", { filePath: file, newContent: PROPOSED });
      await client.runCodeAction(await stagedAction(client, "Accept"));
      expect((await agent.waitFor("ide/diffAccepted", () => true, 10_000)).params).toEqual({
        filePath: file,
        content: BEFORE,
      });
      expect(client.buffer("src/math.ts")?.text).toBe(BEFORE);
      await agent.close();
    },
  );
});

describe("openDiff on a buffer with unsaved typing (Neovim)", () => {
  it("keeps the user's unsaved typing: the proposal, built on the disk's text, lands beside it", async () => {
    const { client, agent, file } = await session({ style: "neovim" });
    await client.open("src/math.ts");
    await serverCaughtUp(client);
    await client.type("src/math.ts", "// filler 5", "// typed by the user");
    await client.settled();
    await serverCaughtUp(client);
    await agent.call("openDiff", { filePath: file, newContent: PROPOSED });
    await client.runCodeAction(await stagedAction(client, "Accept"));
    const accepted = await agent.waitFor("ide/diffAccepted");
    const expected = PROPOSED.replace("// filler 5", "// typed by the user");
    expect(accepted.params).toEqual({ filePath: file, content: expected });
    await client.settled();
    expect(client.buffer("src/math.ts")?.text).toBe(expected);
    await agent.close();
  });

  it("refuses, never forces, a proposal over lines the user changed: ide/diffRejected, the typing stays", async () => {
    const { client, agent, file } = await session({ style: "neovim" });
    await client.open("src/math.ts");
    await serverCaughtUp(client);
    await client.type("src/math.ts", "'old'", "'mine'");
    await client.settled();
    await serverCaughtUp(client);
    await agent.call("openDiff", { filePath: file, newContent: PROPOSED });
    expect((await agent.waitFor("ide/diffRejected")).params).toEqual({ filePath: file });
    const warning = await client.waitForNotification("window/showMessage", (p) =>
      /src\/math\.ts was not staged/.test((p as { message: string }).message),
    );
    expect((warning.params as { message: string }).message).toMatch(
      /does not fit the unsaved buffer: Conflict/,
    );
    expect(client.buffer("src/math.ts")?.text).toBe(BEFORE.replace("'old'", "'mine'"));
    await agent.close();
  });
});
