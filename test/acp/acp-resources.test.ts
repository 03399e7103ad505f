// Resources as the client sent them: an embedded resource's text and range (#L2:2, #L2-5) reach
// the model as the user's selection; a link to a folder is named as a folder, never a failed prompt.
import { pathToFileURL } from "node:url";
import path from "node:path";
import { methods, type ContentBlock } from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAi, type FakeOpenAi } from "../support/fake-openai.js";
import { closeAll, startEditor } from "./scripted-editor.js";

let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await closeAll();
  await fake?.close();
  fake = undefined;
});

/** What the model was sent for a prompt of these blocks (its first request, as JSON text). */
async function sentFor(blocks: (root: string) => ContentBlock[]): Promise<string> {
  fake = await startFakeOpenAi([{ text: "Seen." }]);
  const editor = await startEditor({
    files: { "app.py": "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n", "src/x.py": "x = 1\n" },
    env: {
      LOCKSTEP_PROVIDER: "openai",
      LOCKSTEP_BASE_URL: fake.url,
      LOCKSTEP_MODEL: "fake-model",
      OPENAI_API_KEY: "test-key",
    },
  });
  const sessionId = await editor.newSession();
  const answer = await editor.conn.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: blocks(editor.root),
  });
  expect(answer.stopReason).toBe("end_turn");
  return JSON.stringify(fake.requests[0]);
}

const uri = (root: string, rel: string): string => pathToFileURL(path.join(root, rel)).href;

describe("lockstep acp takes resources as sent", () => {
  it("an embedded resource with #L2:2 is the user's selection, its text as sent", async () => {
    const sent = await sentFor((root) => [
      { type: "text", text: "explain this" },
      {
        type: "resource",
        resource: { uri: `${uri(root, "app.py")}#L2:2`, text: "b = 2", mimeType: "text/x-python" },
      },
    ]);
    expect(sent).toContain("the user's selection is line 2 of app.py");
    expect(sent).toContain("b = 2");
  });

  it("an embedded resource with #L2-4 names the lines", async () => {
    const sent = await sentFor((root) => [
      { type: "text", text: "explain this" },
      { type: "resource", resource: { uri: `${uri(root, "app.py")}#L2-4`, text: "b = 2\nc = 3\nd = 4" } },
    ]);
    expect(sent).toContain("the user's selection is lines 2-4 of app.py");
  });

  it("a link to a folder is named as a folder, and the prompt runs", async () => {
    const sent = await sentFor((root) => [
      { type: "text", text: "what is in" },
      { type: "resource_link", uri: uri(root, "src"), name: "src" },
    ]);
    expect(sent).toContain('the folder \\"src\\"');
  });
});
