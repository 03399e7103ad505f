// The wrapped server's diagnostics for the agent and beside lockstep's own:
// diagnostics_after marks the error a patch introduced and is clean after the
// fix; the setting 0 turns the wait off; and a change under review keeps its
// hunk diagnostics while the child publishes, and the child's keep theirs.
import type { Diagnostic } from "vscode-languageserver-protocol";
import { afterEach, describe, expect, it } from "vitest";
import { sha256Hex, startAgent, turn, writeCall } from "../support/agent-scripts.js";
import path from "node:path";
import { cleanup, launch, sha256 } from "../support/lsp-client.js";
import { diagnosticsOf, launchWrapped, TS_FILES, WRAP } from "./wrap-support.js";

afterEach(cleanup);

const A = TS_FILES["src/a.ts"];
const BROKEN = "export const count: number = 'one';\n";

interface After {
  version: number | null;
  status: string;
  message?: string;
  diagnostics: { line: number; column: number; severity: string; message: string; new: boolean }[];
}
const afterOf = (envelope: { data?: Record<string, unknown> }): After =>
  envelope.data!["diagnostics_after"] as After;

describe("wrap mode: diagnostics", () => {
  it("diagnostics_after marks the error a patch introduced as new, and is clean after the fix", async () => {
    // A longer wait than the default 1.5 s: on a loaded machine the server's list can take longer, and
    // what is tested here is what the list says, not how soon it comes.
    const client = await launchWrapped({ approval: "auto", diagnosticsWaitMs: 8000 });
    await client.open("src/a.ts", undefined, "typescript");
    // The server's list for the opened text first (typescript-language-server names no versions: a write
    // before it would leave two texts unaccounted for, and its one list could be for either).
    await diagnosticsOf(client, "src/a.ts", () => true);
    const breaking = await client.command("write_file", {
      file_path: "src/a.ts",
      content: BROKEN,
      base_content_sha256: sha256(A),
    });
    expect(breaking).toMatchObject({ ok: true, data: { applied: true } });
    const broken = afterOf(breaking);
    expect(broken).toMatchObject({ status: "received", version: 2 });
    expect(broken.diagnostics).toEqual([
      expect.objectContaining({
        line: 1,
        column: 14,
        severity: "error",
        new: true,
        message: expect.stringContaining("not assignable to type 'number'") as string,
      }),
    ]);

    // A second change that leaves the error where it was: the error is there, not new.
    const moved = "// moved\n" + BROKEN;
    const still = afterOf(
      await client.command("write_file", {
        file_path: "src/a.ts",
        content: moved,
        base_content_sha256: sha256(BROKEN),
      }),
    );
    expect(still.diagnostics).toEqual([expect.objectContaining({ line: 2, new: false })]);

    const fixed = afterOf(
      await client.command("write_file", {
        file_path: "src/a.ts",
        content: A,
        base_content_sha256: sha256(moved),
      }),
    );
    expect(fixed).toMatchObject({ status: "received", version: 4, diagnostics: [] });
    // The editor was shown the same lists.
    await diagnosticsOf(client, "src/a.ts", (d) => d.length === 0);
  }, 60_000);

  it("never takes the list a server sent before it saw the change for the new text's (a server that names no versions)", async () => {
    // late-server publishes, after each change, first the old text's list, then 200 ms later the new one's.
    const LATE = ["--wrap", "--", process.execPath, path.resolve("test/relay/fixtures/late-server.mjs")];
    const client = await launch(
      { "notes.txt": "fine\n" },
      {
        style: "helix",
        args: LATE,
        initializationOptions: { lockstep: { approval: "auto", diagnosticsWaitMs: 8000 } },
      },
    );
    await client.open("notes.txt");
    let text = "fine\n";
    const write = async (next: string): Promise<After> => {
      const result = await client.command("write_file", {
        file_path: "notes.txt",
        content: next,
        base_content_sha256: sha256(text),
      });
      text = next;
      return afterOf(result);
    };
    // Right after the open (two versions sent, no list yet), and then once per change.
    expect(await write("BAD\n")).toMatchObject({
      status: "received",
      version: 2,
      diagnostics: [{ line: 1, message: "BAD is not allowed", new: true }],
    });
    expect(await write("fine\nBAD\n")).toMatchObject({
      status: "received",
      version: 3,
      diagnostics: [{ line: 2, new: false }],
    });
    expect(await write("fine\n")).toMatchObject({ status: "received", version: 4, diagnostics: [] });
    expect(await write("BAD\nBAD\n")).toMatchObject({
      status: "received",
      version: 5,
      diagnostics: [
        { line: 1, new: true },
        { line: 2, new: true },
      ],
    });
  }, 60_000);

  it("diagnosticsWaitMs 0 does not wait, and says how to look", async () => {
    const client = await launchWrapped({ approval: "auto", diagnosticsWaitMs: 0 });
    await client.open("src/a.ts", undefined, "typescript");
    const started = Date.now();
    const result = await client.command("write_file", {
      file_path: "src/a.ts",
      content: BROKEN,
      base_content_sha256: sha256(A),
    });
    // Not waited: the message says so (a wait that timed out names its length instead); the time only guards
    // against a hang, with room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(afterOf(result)).toMatchObject({
      status: "timeout",
      diagnostics: [],
      message: expect.stringContaining("get_diagnostics") as string,
    });
    expect(afterOf(result).message).toContain("diagnosticsWaitMs is 0");
  }, 60_000);

  it("says when the file is not open, so the server may never see it", async () => {
    const client = await launchWrapped({ approval: "auto", closedFileEdits: "disk" });
    const result = await client.command("write_file", { file_path: "src/new.ts", content: BROKEN });
    expect(afterOf(result)).toMatchObject({
      status: "not_open",
      message: expect.stringContaining("not open") as string,
    });
  }, 60_000);

  it("a change under review and the child's errors are published together: neither erases the other", async () => {
    const before = "export const a: number = 1;\nexport const b: number = 2;\n";
    const proposed = "export const a: number = 10;\nexport const b: number = 2;\n";
    const rig = await startAgent({
      files: { ...TS_FILES, "src/r.ts": before },
      args: WRAP,
      initializationOptions: { lockstep: { approval: "review" } },
      script: (_r, i) =>
        i === 0
          ? turn({ calls: [writeCall("src/r.ts", proposed, sha256Hex(before))] })
          : turn({ text: ["Done."] }),
    });
    const { client } = rig;
    await client.open("src/r.ts", undefined, "typescript");
    await rig.ask("bump a");
    const sources = (d: Diagnostic[]): string[] => d.map((x) => `${x.source}:${x.range.start.line}`).sort();
    await diagnosticsOf(client, "src/r.ts", (d) => d.some((x) => x.source === "lockstep"));

    // The user breaks line 2: the child's error arrives, and the hunk on line 1 stays beside it.
    const from = client.notifications.length;
    await client.type("src/r.ts", "= 2;", "= 'two';");
    const both = await diagnosticsOf(
      client,
      "src/r.ts",
      (d) => d.some((x) => x.source === "typescript"),
      from,
    );
    expect(sources(both)).toEqual(["lockstep:0", "typescript:1"]);
    // From then on, no list for this document drops either, until the hunk is decided.
    const [change] = (await client.command("review", {})).data!["pending"] as {
      hunks: { hunk_id: string }[];
    }[];
    const beforeDecision = client.notifications.length;
    expect(
      await client.command("decide", { id: change!.hunks[0]!.hunk_id, decision: "apply" }),
    ).toMatchObject({ ok: true });
    const after = await diagnosticsOf(
      client,
      "src/r.ts",
      (d) => !d.some((x) => x.source === "lockstep"),
      beforeDecision,
    );
    expect(sources(after)).toEqual(["typescript:1"]);
    const lists = client.notifications
      .slice(from)
      .filter(
        (n) =>
          n.method === "textDocument/publishDiagnostics" &&
          (n.params as { uri: string }).uri === client.uri("src/r.ts"),
      )
      .map((n) => sources((n.params as { diagnostics: Diagnostic[] }).diagnostics));
    const firstBoth = lists.findIndex((l) => l.includes("typescript:1") && l.includes("lockstep:0"));
    expect(firstBoth).toBeGreaterThanOrEqual(0);
    // After the two were first shown together, every list keeps the child's error; the hunk goes only at the decision.
    for (const list of lists.slice(firstBoth)) expect(list).toContain("typescript:1");
    expect(client.buffer("src/r.ts")!.text).toBe(
      "export const a: number = 10;\nexport const b: number = 'two';\n",
    );
  }, 60_000);
});
