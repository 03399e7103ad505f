// The house drawn from the imports: every folder of server/src imports only folders below
// it (ARCHITECTURE.md, "Layers"), no file is part of an import circle, and the protocol
// libraries stay in their doors. Imports are read with TypeScript's own pre-processor, type
// imports and dynamic import() included: a type import is a dependency of the reader too.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../server/src");

/** Top first; a folder may import the folders of any row below its own, never its own row's. */
const LAYERS: readonly (readonly string[])[] = [
  ["cli"],
  ["acp", "lsp"],
  ["assembly"],
  ["companion", "relay", "mcp"],
  ["sessions"],
  ["agent"],
  ["tools"],
  ["review"],
  ["workspace"],
  ["edit"],
  ["config", "diagnostics", "jsonrpc", "."],
  // Below config/, which reads errno codes from it; edit/ imports its outcome.ts.
  ["shared", "commands"],
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith(".ts") ? [full] : [];
  });
}

const FILES = sourceFiles(SRC);

/** Each folder's head file: its first comment says what the folder is and what it knows nothing of. */
const HEADS: Record<string, string> = {
  cli: "cli/main.ts",
  acp: "acp/agent.ts",
  lsp: "lsp/server.ts",
  assembly: "assembly/assemble-agent.ts",
  companion: "companion/companion.ts",
  relay: "relay/relay.ts",
  mcp: "mcp/mcp-tools.ts",
  sessions: "sessions/index.ts",
  commands: "commands/index.ts",
  agent: "agent/agent-service.ts",
  tools: "tools/registry.ts",
  review: "review/proposal.ts",
  workspace: "workspace/workspace.ts",
  edit: "edit/text-edits.ts",
  config: "config/settings.ts",
  diagnostics: "diagnostics/types.ts",
  jsonrpc: "jsonrpc/framing.ts",
  shared: "shared/outcome.ts",
};
/** Loose files at the top of server/src (version.ts) have no folder to head. */
const HEADLESS = ["."];

/** Each file's imports: relative ones resolved to a source file, packages by name. */
const IMPORTS = new Map(
  FILES.map((file) => {
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const specs = info.importedFiles.map((f) => f.fileName);
    const local = specs
      .filter((s) => s.startsWith("."))
      .map((s) => path.resolve(path.dirname(file), s).replace(/\.js$/, ".ts"));
    const packages = specs.filter((s) => !s.startsWith(".") && !s.startsWith("node:"));
    return [file, { local, packages }] as const;
  }),
);

const rel = (file: string): string => path.relative(SRC, file);
const folderOf = (file: string): string => {
  const parts = rel(file).split(path.sep);
  return parts.length > 1 ? parts[0]! : ".";
};
const layerOf = (folder: string): number => LAYERS.findIndex((row) => row.includes(folder));

describe("the house drawn from the imports", () => {
  it("places every folder of server/src in a layer", () => {
    const folders = [...new Set(FILES.map(folderOf))];
    expect(folders.filter((f) => layerOf(f) < 0)).toEqual([]);
  });

  it("has no import that runs up or sideways between folders", () => {
    const wrong: string[] = [];
    for (const [file, { local }] of IMPORTS) {
      for (const target of local) {
        const from = folderOf(file);
        const to = folderOf(target);
        if (from !== to && layerOf(to) <= layerOf(from)) wrong.push(`${rel(file)} -> ${rel(target)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("has no import circle between files", () => {
    // Tarjan's strongly connected components; any component of two or more files is a circle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const circles: string[][] = [];
    let next = 0;
    const visit = (file: string): void => {
      index.set(file, next);
      low.set(file, next++);
      stack.push(file);
      onStack.add(file);
      for (const target of IMPORTS.get(file)?.local ?? []) {
        if (!IMPORTS.has(target)) continue;
        if (!index.has(target)) {
          visit(target);
          low.set(file, Math.min(low.get(file)!, low.get(target)!));
        } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
      if (low.get(file) !== index.get(file)) return;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(rel(member));
      } while (member !== file);
      if (component.length > 1) circles.push(component.sort());
    };
    for (const file of FILES) if (!index.has(file)) visit(file);
    expect(circles).toEqual([]);
  });

  it("keeps the protocol libraries in their doors", () => {
    const doors: [RegExp, string[]][] = [
      [/^vscode-languageserver(\/|$)/, ["lsp", "cli"]],
      [/^@agentclientprotocol\//, ["acp"]],
      [/^@modelcontextprotocol\//, ["companion", "mcp"]],
    ];
    const wrong: string[] = [];
    for (const [file, { packages }] of IMPORTS) {
      for (const [pattern, allowed] of doors) {
        if (packages.some((p) => pattern.test(p)) && !allowed.includes(folderOf(file))) wrong.push(rel(file));
      }
    }
    expect(wrong).toEqual([]);
  });

  it("has a head file per folder that says what the folder knows nothing of", () => {
    const folders = [...new Set(FILES.map(folderOf))].filter((f) => !HEADLESS.includes(f));
    const missing = folders.filter((f) => {
      const head = HEADS[f];
      if (head === undefined) return true;
      const lines = readFileSync(path.join(SRC, head), "utf8").split("\n");
      const comment = lines
        .slice(
          0,
          lines.findIndex((l) => !l.startsWith("//")),
        )
        .join(" ");
      return !/knows nothing of/i.test(comment);
    });
    expect(missing).toEqual([]);
  });

  it("assembles the agent in one place: AgentService, its recorder and model factory", () => {
    for (const made of ["AgentService", "SessionRecorder", "ModelFactory"]) {
      // Code, not a comment's mention of it.
      const call = new RegExp(`^(?!\\s*(//|\\*)).*\\bnew ${made}\\(`, "m");
      const where = FILES.filter((f) => call.test(readFileSync(f, "utf8"))).map(rel);
      expect(where, made).toEqual(["assembly/assemble-agent.ts"]);
    }
  });

  it("finds the imports it checks (a reader that saw none would pass everything)", () => {
    const edges = [...IMPORTS.values()].reduce((n, { local }) => n + local.length, 0);
    expect(edges).toBeGreaterThan(500);
    expect(IMPORTS.get(path.join(SRC, "lsp/live-settings.ts"))?.local).toContain(
      path.join(SRC, "config/settings.ts"),
    );
  });
});
