// `lockstep acp` as an ACP editor meets it: the time from session/prompt to the
// first session/update with a replayed model, and what a file read or write
// costs when it goes through the client's fs methods (the editor's buffers)
// against the disk and against a direct read in process. Drives the real
// process with the SDK's client side (test/acp/scripted-editor.ts).
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { methods, type SessionNotification } from "@agentclientprotocol/sdk";
import { startEditor, type ScriptedEditor } from "../test/acp/scripted-editor.js";
import { timingRow, type TimingRow } from "./report.js";

const PROMPTS = 15;
const CALLS = 30;
const FILE = "src/file.ts";
const TEXT =
  Array.from({ length: 400 }, (_, i) => `export const value_${i} = compute(${i}); // line ${i}`).join("\n") +
  "\n";

/** Milliseconds between each tool call's start and its end, as the client saw them. */
function callDurations(editor: ScriptedEditor, arrived: Map<SessionNotification, number>): number[] {
  const started = new Map<string, number>();
  const out: number[] = [];
  for (const u of editor.updates) {
    const at = arrived.get(u)!;
    if (u.update.sessionUpdate === "tool_call") started.set(u.update.toolCallId, at);
    else if (
      u.update.sessionUpdate === "tool_call_update" &&
      (u.update.status === "completed" || u.update.status === "failed")
    ) {
      const begun = started.get(u.update.toolCallId);
      if (begun !== undefined) out.push(at - begun);
    }
  }
  return out;
}

/** Every update's arrival time, recorded as it comes. */
function clock(editor: ScriptedEditor): Map<SessionNotification, number> {
  const arrived = new Map<SessionNotification, number>();
  const push = editor.updates.push.bind(editor.updates);
  editor.updates.push = (...items: SessionNotification[]): number => {
    for (const item of items) arrived.set(item, performance.now());
    return push(...items);
  };
  return arrived;
}

async function firstUpdate(): Promise<TimingRow> {
  const editor = await startEditor({
    turns: Array.from({ length: PROMPTS }, () => ({ text: ["ok"] })),
    fs: { read: true, write: true },
  });
  try {
    const sessionId = await editor.newSession();
    await editor.waitForUpdate((u) => u.update.sessionUpdate === "available_commands_update");
    const samples: number[] = [];
    for (let i = 0; i < PROMPTS; i++) {
      const seen = editor.updates.length;
      const at = performance.now();
      const first = editor.waitForUpdate(
        (u) => editor.updates.indexOf(u) >= seen && u.update.sessionUpdate === "agent_message_chunk",
      );
      const answer = editor.conn.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: `prompt ${i}` }],
      });
      await first;
      samples.push(performance.now() - at);
      await answer;
    }
    return timingRow("acp: session/prompt → first session/update (replayed model)", samples);
  } finally {
    await editor.close();
  }
}

async function toolCalls(kind: "read" | "write", fs: { read: boolean; write: boolean }): Promise<TimingRow> {
  const call = (i: number) =>
    kind === "read"
      ? { name: "read_file", args: { file_path: FILE } }
      : {
          name: "edit",
          args: {
            file_path: FILE,
            old_string: `value_${i} = compute(${i})`,
            new_string: `value_${i} = compute(${i} + 1)`,
            base_content_sha256: `{{sha256:${FILE}}}`,
          },
        };
  // One call per turn: each write names the state the previous one left.
  const turns = [
    { calls: [{ name: "read_file", args: { file_path: FILE } }] },
    ...Array.from({ length: CALLS }, (_, i) => ({ calls: [call(i)] })),
    { text: ["done"] },
  ];
  const editor = await startEditor({
    files: { [FILE]: TEXT },
    turns,
    fs,
    args: ["--approval", "auto"],
    env: { LOCKSTEP_MAX_TURNS: String(CALLS + 5) },
  });
  try {
    const arrived = clock(editor);
    const sessionId = await editor.newSession();
    await editor.conn.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    await editor.waitForUpdate((u) => u.update.sessionUpdate === "agent_message_chunk");
    const samples = callDurations(editor, arrived).slice(1);
    const where = fs.read
      ? fs.write
        ? "the client's buffers"
        : "client reads, disk writes"
      : "the disk (no fs capabilities)";
    return timingRow(
      `acp: ${kind === "read" ? "read_file" : "edit"} through ${where}`,
      samples,
      fs.read ? `${editor.reads.length} fs reads, ${editor.writes.length} fs writes` : "",
    );
  } finally {
    await editor.close();
  }
}

async function directRead(): Promise<TimingRow> {
  const editor = await startEditor({ files: { [FILE]: TEXT } });
  try {
    const samples: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const at = performance.now();
      createHash("sha256")
        .update(await readFile(path.join(editor.root, FILE), "utf8"))
        .digest("hex");
      samples.push(performance.now() - at);
    }
    return timingRow("direct: fs.readFile + sha256 in process (the peer)", samples);
  } finally {
    await editor.close();
  }
}

export async function acpRows(): Promise<TimingRow[]> {
  return [
    await firstUpdate(),
    await toolCalls("read", { read: true, write: true }),
    await toolCalls("read", { read: false, write: false }),
    await directRead(),
    await toolCalls("write", { read: true, write: true }),
    await toolCalls("write", { read: true, write: false }),
    await toolCalls("write", { read: false, write: false }),
  ];
}
