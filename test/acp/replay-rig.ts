// What the session/load replay tests share: temporary folders removed after each test (with the
// scripted editors closed first), the turn that edits three files (one large) and the
// session/load that replays it, and each tool call's updates as a client keeps them.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { methods, type RequestPermissionRequest, type SessionNotification } from "@agentclientprotocol/sdk";
import { afterEach } from "vitest";
import { closeAll, edit, messageText, startEditor } from "./scripted-editor.js";

const dirs: string[] = [];

/** Registers the clean-up for the calling test file. */
export function cleanUpAfterEach(): void {
  afterEach(async () => {
    await closeAll();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
}

export const tempDir = (prefix: string): string => {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
};

/** A tool call's start, then each of its updates: what the client shows, and where. */
export interface CallUpdate {
  status: unknown;
  title: unknown;
  content: unknown;
  locations: unknown;
}

/** Each tool call's start and updates, in the order the calls started; an update of no started call throws. */
export function calls(updates: SessionNotification[]): CallUpdate[][] {
  const ids: string[] = [];
  const out: CallUpdate[][] = [];
  for (const { update } of updates) {
    if (update.sessionUpdate !== "tool_call" && update.sessionUpdate !== "tool_call_update") continue;
    if (update.sessionUpdate === "tool_call") {
      ids.push(update.toolCallId);
      out.push([]);
    }
    const at = ids.indexOf(update.toolCallId);
    if (at < 0) throw new Error(`an update of tool call ${update.toolCallId}, never started`);
    const { status, title, content, locations } = update;
    out[at]!.push({ status, title, content, locations });
  }
  return out;
}

export interface LiveTurn {
  root: string;
  stateDir: string;
  sessionId: string;
  /** Each call's start and updates as the first editor saw them live. */
  live: CallUpdate[][];
}

/**
 * A turn that reads a.ts, b.ts and big.ts (1,500 lines), then edits each in turn, the editor
 * answering each permission as `permission` says; the agent is killed after it (SIGKILL), its
 * session left in the store.
 */
export async function editThreeFiles(
  permission: (request: RequestPermissionRequest) => string,
): Promise<LiveTurn> {
  const root = tempDir("lockstep-acp-project-");
  const stateDir = tempDir("lockstep-acp-state-");
  const big = Array.from({ length: 1500 }, (_, i) => `export const v${i} = ${i};`).join("\n") + "\n";
  writeFileSync(path.join(root, "a.ts"), "export const n = 1;\n");
  writeFileSync(path.join(root, "b.ts"), "export const m = 1;\n");
  writeFileSync(path.join(root, "big.ts"), big);
  const first = await startEditor({
    root,
    stateDir,
    turns: [
      { calls: [{ name: "read_many_files", args: { file_paths: ["a.ts", "b.ts", "big.ts"] } }] },
      { calls: [edit("a.ts", "n = 1", "n = 2")] },
      { calls: [edit("b.ts", "m = 1", "m = 2")] },
      { calls: [edit("big.ts", "v700 = 700;", "v700 = 7000;")] },
      { text: ["Done."] },
    ],
    permission,
  });
  const sessionId = await first.newSession();
  await first.conn.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "change them" }],
  });
  await first.waitForUpdate((u) => messageText([u]).includes("Done."));
  const live = calls(first.updates);
  const killed = new Promise((resolve) => first.child.once("exit", resolve));
  first.child.kill("SIGKILL");
  await killed;
  return { root, stateDir, sessionId, live };
}

/** The session loaded by a new editor (session/load): each call's start and updates as replayed. */
export async function replay({ root, stateDir, sessionId }: LiveTurn): Promise<CallUpdate[][]> {
  const second = await startEditor({ root, stateDir, turns: [] });
  await second.conn.agent.request(methods.agent.session.load, { sessionId, cwd: root, mcpServers: [] });
  await second.waitForUpdate((u) => messageText([u]).includes("Done."));
  return calls(second.updates);
}
