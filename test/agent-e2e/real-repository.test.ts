// The agent in a repository of a few thousand files, as a new user would try it:
// it searches, reads the lines around the match, patches them, and answers. What
// the fake endpoint receives is what Gemini would see: AGENTS.md in the system
// instruction, and the patched file's content exactly once in the last request.
import { afterEach, describe, expect, it } from "vitest";
import { contentsOf, lastResponses, startAgent, turn } from "../support/agent-scripts.js";
import type { RecordedRequest } from "../support/fake-gemini.js";
import { stopAllServers } from "../support/lsp-client.js";

afterEach(stopAllServers);

const MODULES = 60;
const FILES_PER_MODULE = 50;

function generatedRepository(): { files: Record<string, string>; target: string; before: string } {
  const files: Record<string, string> = {
    "AGENTS.md": "# Working here\n\nMoney is in integer cents; never use floating point for prices.\n",
    ".gitignore": "dist/\n",
    "dist/bundle.js": "export function computeTotal() {}\n",
  };
  for (let m = 0; m < MODULES; m++) {
    for (let f = 0; f < FILES_PER_MODULE; f++) {
      const name = `packages/m${String(m).padStart(2, "0")}/src/file${String(f).padStart(3, "0")}.ts`;
      files[name] =
        Array.from({ length: 30 }, (_, i) => `export const value${m}_${f}_${i} = ${m * f + i};`).join("\n") +
        "\n";
    }
  }
  const target = "packages/m37/src/billing.ts";
  const lines = Array.from({ length: 60 }, (_, i) => `// billing note ${i + 1}`);
  lines.splice(
    40,
    0,
    "export function computeTotal(items: { cents: number }[]): number {",
    "  return items.reduce((sum, item) => sum + item.cents * 1.0, 0);",
    "}",
  );
  const before = lines.join("\n") + "\n";
  files[target] = before;
  return { files, target, before };
}

function lastResponseData(request: RecordedRequest): Record<string, unknown> {
  const data = lastResponses(request)[0]?.response.data;
  if (!data) throw new Error(`no data in the last answer: ${JSON.stringify(lastResponses(request))}`);
  return data;
}

describe("the agent in a real repository", () => {
  it("search → ranged read → safe_patch → answer; AGENTS.md in the system instruction; the patched file once in the last request", async () => {
    const { files, target, before } = generatedRepository();
    const oldLine = "  return items.reduce((sum, item) => sum + item.cents * 1.0, 0);";
    const newLine = "  return items.reduce((sum, item) => sum + item.cents, 0);";
    const after = before.replace(oldLine, newLine);
    let found: { file_path: string; line: number } | undefined;
    const rig = await startAgent({
      files,
      initializationOptions: { approval: "auto", closedFileEdits: "disk" },
      script: (request, index) => {
        if (index === 0)
          return turn({ calls: [{ name: "search_files", args: { pattern: "function computeTotal" } }] });
        if (index === 1) {
          const matches = lastResponseData(request)["matches"] as { file_path: string; line: number }[];
          found = matches[0];
          return turn({
            calls: [
              { name: "read_file", args: { file_path: found!.file_path, offset: found!.line - 3, limit: 8 } },
            ],
          });
        }
        if (index === 2) {
          const part = lastResponseData(request);
          const slice = String(part["content"]).replace(/\n$/, "").split("\n");
          const diff =
            "@@ @@\n" +
            slice.map((l) => (l === oldLine ? `-${oldLine}\n+${newLine}` : ` ${l}`)).join("\n") +
            "\n";
          return turn({
            calls: [
              {
                name: "safe_patch",
                args: {
                  file_path: String(part["file_path"]),
                  unified_diff: diff,
                  base_content_sha256: String(part["sha256"]),
                },
              },
            ],
          });
        }
        return turn({ text: ["Prices are summed in integer cents now."] });
      },
    });
    const job = await rig.finished(await rig.ask("computeTotal multiplies by a float; fix it"), 30_000);
    expect(job.status).toBe("done");
    expect(job.files_changed).toEqual([target]);
    expect(found).toMatchObject({ file_path: target, line: 41 });
    expect(await rig.disk(target)).toBe(after);

    const requests = rig.fake!.requests;
    expect(requests).toHaveLength(4);
    // The search saw the repository's files, not dist/ (ignored); the read was a part of the file.
    const searched = lastResponses(requests[1])[0]!.response.data!;
    expect(searched["matches"]).toEqual([
      {
        file_path: target,
        line: 41,
        text: "export function computeTotal(items: { cents: number }[]): number {",
      },
    ]);
    expect(searched["files_searched"]).toBe(MODULES * FILES_PER_MODULE + 3);
    expect(lastResponses(requests[2])[0]!.response.data).toMatchObject({
      start_line: 38,
      end_line: 45,
      total_lines: 63,
      truncated: true,
    });

    for (const request of requests)
      expect(JSON.stringify(request.body.systemInstruction)).toContain("Money is in integer cents");
    const last = JSON.stringify(contentsOf(requests[3]));
    const occurrences = (needle: string) => last.split(JSON.stringify(needle).slice(1, -1)).length - 1;
    expect(occurrences(after)).toBe(1);
    // The part read before the patch is superseded by the new state: a marker, not a second copy of those lines.
    const readAnswer = contentsOf(requests[3])
      .flatMap((c) => c.parts ?? [])
      .map(
        (p) =>
          p["functionResponse"] as
            | { name: string; response: { data: { content: string; sha256: string } } }
            | undefined,
      )
      .find((r) => r?.name === "read_file");
    expect(readAnswer?.response.data.content).toMatch(
      /^\[superseded: a newer state of packages\/m37\/src\/billing\.ts is further down \(sha256 [0-9a-f]{64}\); use that one\]$/,
    );
    expect(last).not.toContain(JSON.stringify(before).slice(1, -1));

    const session = await rig.client.command("session", {});
    expect(session).toMatchObject({ ok: true, data: { project_instructions: "AGENTS.md" } });
  }, 60_000);
});
