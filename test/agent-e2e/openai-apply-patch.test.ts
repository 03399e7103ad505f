// OpenAI models write the apply_patch envelope: with `patchTool: "apply_patch"`
// they are offered the tool (one text argument) and their call lands across
// files; without tools, an envelope in the answer lands as edit blocks do.
// The spawned server runs the real openai package against a fake endpoint.
import { afterEach, describe, expect, it } from "vitest";
import { askUntilDone } from "../support/ask-job.js";
import { startFakeOpenAi, type FakeAnswer, type FakeOpenAi } from "../support/fake-openai.js";
import { cleanup, launch, type TestClient } from "../support/lsp-client.js";

let fake: FakeOpenAi | undefined;
afterEach(async () => {
  await cleanup();
  await fake?.close();
  fake = undefined;
});

const A = ["export const a = 1;", "export const b = 2;", ""].join("\n");
const B = ["export const c = 3;", ""].join("\n");
const ENVELOPE = [
  "*** Begin Patch",
  "*** Update File: a.ts",
  "@@",
  "-export const a = 1;",
  "+export const a = 10;",
  "*** Update File: b.ts",
  "@@",
  "-export const c = 3;",
  "+export const c = 30;",
  "*** End Patch",
  "",
].join("\n");

async function agent(script: FakeAnswer[], settings: Record<string, unknown>): Promise<TestClient> {
  fake = await startFakeOpenAi(script);
  const client = await launch(
    { "a.ts": A, "b.ts": B },
    {
      style: "helix",
      initializationOptions: {
        provider: "openai",
        baseUrl: fake.url,
        model: "m",
        approval: "auto",
        ...settings,
      },
    },
  );
  await client.open("a.ts");
  await client.open("b.ts");
  return client;
}

const declared = (f: FakeOpenAi): string[] =>
  ((f.requests[0]!["tools"] ?? []) as { function: { name: string } }[]).map((t) => t.function.name);

describe("patchTool: apply_patch", () => {
  it("offers the tool, and the model's envelope changes both files", async () => {
    const client = await agent(
      [
        { calls: [{ name: "read_many_files", args: { file_paths: ["a.ts", "b.ts"] } }] },
        { calls: [{ name: "apply_patch", args: { input: ENVELOPE } }] },
        { text: "Done." },
      ],
      { patchTool: "apply_patch" },
    );
    const job = await askUntilDone(client, "multiply by ten");
    expect(job["status"]).toBe("done");
    expect(declared(fake!)).toContain("apply_patch");
    expect(job["files_changed"]).toEqual(["a.ts", "b.ts"]);
    expect(client.buffer("a.ts")!.text).toBe(A.replace("a = 1", "a = 10"));
    expect(client.buffer("b.ts")!.text).toBe(B.replace("c = 3", "c = 30"));
  });

  it("is not offered by default", async () => {
    const client = await agent([{ text: "Nothing to do." }], {});
    await askUntilDone(client, "look");
    expect(declared(fake!)).not.toContain("apply_patch");
  });
});

describe("a model without tools answering with an envelope", () => {
  it("has its envelope applied to the files it was given", async () => {
    const client = await agent([{ text: `Here is the change.\n\n${ENVELOPE}` }], { tools: false });
    const job = await askUntilDone(client, "multiply by ten in @a.ts and @b.ts");
    expect(job["status"]).toBe("done");
    expect(client.buffer("a.ts")!.text).toBe(A.replace("a = 1", "a = 10"));
    expect(client.buffer("b.ts")!.text).toBe(B.replace("c = 3", "c = 30"));
  });

  it("applies both when the answer also holds an edit block", async () => {
    const onlyA = [
      "*** Begin Patch",
      "*** Update File: a.ts",
      "@@",
      "-export const a = 1;",
      "+export const a = 10;",
      "*** End Patch",
    ].join("\n");
    const block = [
      "b.ts",
      "««« EDIT",
      "export const c = 3;",
      "═══════ REPL",
      "export const c = 30;",
      "»»» EDIT END",
    ].join("\n");
    const client = await agent([{ text: `Two changes.\n\n${onlyA}\n\nand\n\n${block}\n` }], { tools: false });
    const job = await askUntilDone(client, "multiply by ten in @a.ts and @b.ts");
    expect(job["status"]).toBe("done");
    expect(client.buffer("a.ts")!.text).toBe(A.replace("a = 1", "a = 10"));
    expect(client.buffer("b.ts")!.text).toBe(B.replace("c = 3", "c = 30"));
  });
});
