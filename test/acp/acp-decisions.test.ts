// The model hears what happened to a change: `rejected` only when the user said no; a request
// the client withdrew or could not put to the user is `cancelled`, without "do not retry"; a
// change the client cannot take (a write it refuses, unsaved text on a client that takes no
// writes) is named as such, never told as stale.
import { readFileSync } from "node:fs";
import path from "node:path";
import { methods, type RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAi, type FakeOpenAi } from "../support/fake-openai.js";
import { sha256Of } from "../support/workspace-fixture.js";
import { closeAll, contentText, startEditor, type EditorOptions } from "./scripted-editor.js";

let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await closeAll();
  await fake?.close();
  fake = undefined;
});

const TEXT = "const answer = 41;\n";

/** One edit the model proposes, then its closing words; returns what the model was told of the edit, and the update's words. */
async function oneEdit(
  options: EditorOptions,
  buffer?: string,
): Promise<{
  told: { code?: string; message?: string; suggestions?: string[] };
  update: string;
  permissions: number;
  writes: number;
  asked: RequestPermissionRequest | undefined;
}> {
  const base = buffer ?? TEXT;
  fake = await startFakeOpenAi([
    {
      calls: [
        {
          name: "edit",
          args: {
            file_path: "a.ts",
            old_string: "41",
            new_string: "42",
            base_content_sha256: sha256Of(base),
          },
        },
      ],
    },
    { text: "Noted." },
  ]);
  const editor = await startEditor({
    files: { "a.ts": TEXT },
    env: {
      LOCKSTEP_PROVIDER: "openai",
      LOCKSTEP_BASE_URL: fake.url,
      LOCKSTEP_MODEL: "fake-model",
      OPENAI_API_KEY: "test-key",
    },
    ...options,
  });
  if (buffer !== undefined) editor.buffers.set(path.join(editor.root, "a.ts"), buffer);
  const sessionId = await editor.newSession();
  const answer = await editor.conn.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "make it 42" }],
  });
  expect(answer.stopReason).toBe("end_turn");
  expect(readFileSync(path.join(editor.root, "a.ts"), "utf8")).toBe(TEXT);
  const messages = (fake.requests[1] as { messages: { role: string; content: string }[] }).messages;
  const tool = messages.filter((m) => m.role === "tool").at(-1)!;
  const told =
    (JSON.parse(tool.content) as { error?: { code?: string; message?: string; suggestions?: string[] } })
      .error ?? {};
  const failed = await editor.waitForUpdate(
    (u) => u.update.sessionUpdate === "tool_call_update" && u.update.status === "failed",
  );
  return {
    told,
    update: contentText(failed),
    permissions: editor.permissions.length,
    writes: editor.writes.length,
    asked: editor.permissions[0],
  };
}

describe("lockstep acp tells the model what became of a change", () => {
  it("a permission the client answers `cancelled` is not a rejection", async () => {
    const out = await oneEdit({ permission: () => "cancelled" });
    expect(out.told.code).toBe("cancelled");
    expect(out.told.message).toMatch(/withdrew the permission request/);
    expect(JSON.stringify(out.told)).not.toMatch(/declined|do not retry/i);
    expect(out.update).not.toContain("Rejected");
    expect(out.writes).toBe(0);
    // The request names the call as its tool_call did (clients show it, not "Unknown").
    expect(out.asked?.toolCall).toMatchObject({ title: "edit a.ts", kind: "edit" });
  });

  it("a permission request the client answers with an error is not a rejection, and names the error", async () => {
    const out = await oneEdit({ permission: () => "error" });
    expect(out.told.code).toBe("cancelled");
    expect(out.told.message).toMatch(/could not ask the user.*Method not found/);
    expect(JSON.stringify(out.told)).not.toMatch(/declined|do not retry/i);
  });

  it("a write the client refuses is its own outcome with the client's reason, not a stale state", async () => {
    const out = await oneEdit({ refuseWrites: "buffer is read-only" });
    expect(out.permissions).toBe(1);
    expect(out.told.code).toBe("permission_denied");
    expect(out.told.message).toContain("buffer is read-only");
    expect(out.update).not.toMatch(/Stale|changed meanwhile/);
  });

  it("unsaved text on a client that takes no writes is named as such, not a stale state", async () => {
    const out = await oneEdit({ fs: { read: true, write: false } }, "const answer = 41; // unsaved\n");
    expect(out.told.code).toBe("permission_denied");
    expect(out.told.message).toMatch(/unsaved changes/);
    expect(out.update).not.toMatch(/Stale|changed meanwhile/);
  });
});
