// Wrap mode at the protocol level, with a real language server from npm
// (typescript-language-server over the project's typescript) as the child.
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Diagnostic, Hover, PublishDiagnosticsParams } from "vscode-languageserver-protocol";
import { cleanup, launch, type TestClient } from "../support/lsp-client.js";

const TSLS = path.resolve("node_modules/.bin/typescript-language-server");
const WRAP = ["--wrap", "--", TSLS, "--stdio"];
const FILES = {
  "tsconfig.json": '{ "compilerOptions": { "strict": true } }\n',
  "src/a.ts": "export const count: number = 1;\n",
};

afterEach(cleanup);

/** The latest diagnostics the editor was sent for a document, waiting for a list that satisfies `until`. */
async function diagnosticsOf(
  client: TestClient,
  rel: string,
  until: (d: Diagnostic[]) => boolean,
): Promise<Diagnostic[]> {
  const uri = client.uri(rel);
  const note = await client.waitForNotification(
    "textDocument/publishDiagnostics",
    (p) => (p as PublishDiagnosticsParams).uri === uri && until((p as PublishDiagnosticsParams).diagnostics),
    20_000,
  );
  return (note.params as PublishDiagnosticsParams).diagnostics;
}

describe("lockstep --wrap -- typescript-language-server --stdio", () => {
  it("answers initialize as one server: the child's capabilities with lockstep's commands and code actions, both names", async () => {
    const client = await launch(FILES, {
      style: "helix",
      args: WRAP,
      initializationOptions: { lockstep: { approval: "auto" } },
    });
    const result = client.initializeResult!;
    expect(result.serverInfo?.name).toBe("lockstep + typescript-language-server");
    expect(result.capabilities.hoverProvider).toBeTruthy();
    expect(result.capabilities.completionProvider).toBeTruthy();
    const commands = result.capabilities.executeCommandProvider?.commands ?? [];
    expect(commands).toContain("lockstep.safe_patch");
    expect(commands).toContain("lockstep.get_diagnostics");
    // The child's own commands are listed too.
    expect(commands.some((c) => !c.startsWith("lockstep."))).toBe(true);
    expect(result.capabilities.codeActionProvider).toBeTruthy();
  });

  it("passes hover and completion through to the child, and its diagnostics through to the editor and the agent", async () => {
    const client = await launch(FILES, {
      style: "helix",
      args: WRAP,
      initializationOptions: { lockstep: { approval: "auto" } },
    });
    await client.open("src/a.ts", undefined, "typescript");
    const uri = client.uri("src/a.ts");
    const hover = await client.request<Hover>("textDocument/hover", {
      textDocument: { uri },
      position: { line: 0, character: 14 },
    });
    expect(JSON.stringify(hover.contents)).toContain("count: number");
    const completion = await client.request<{ items: { label: string }[] }>("textDocument/completion", {
      textDocument: { uri },
      position: { line: 0, character: 0 },
    });
    expect(completion.items.length).toBeGreaterThan(0);

    // The list for the opened text first: the server names no versions, so lockstep ties a list to a version
    // only when that is the one text it was sent since its previous list.
    await diagnosticsOf(client, "src/a.ts", () => true);
    await client.type("src/a.ts", "= 1;", "= 'one';");
    const shown = await diagnosticsOf(client, "src/a.ts", (d) => d.length > 0);
    expect(shown[0]!.message).toContain("not assignable to type 'number'");
    const recorded = await client.command("get_diagnostics", { file_path: "src/a.ts" });
    expect(recorded).toMatchObject({ ok: true, data: { files: [{ file_path: "src/a.ts", version: 2 }] } });
    const first = (recorded as unknown as { data: { files: { diagnostics: Record<string, unknown>[] }[] } })
      .data.files[0]!.diagnostics[0]!;
    expect(first).toMatchObject({ line: 1, column: 14, severity: "error", source: "typescript" });
  });
});
