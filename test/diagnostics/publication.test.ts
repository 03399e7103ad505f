import { describe, expect, it } from "vitest";
import type { WireDiagnostic as Diagnostic } from "../../server/src/diagnostics/types.js";
import { DiagnosticsHub, type PublishedDiagnostics } from "../../server/src/diagnostics/publication.js";

const at = (line: number, message: string, source?: string): Diagnostic => ({
  range: { start: { line, character: 0 }, end: { line, character: 1 } },
  message,
  ...(source ? { source } : {}),
});

function hub(): { hub: DiagnosticsHub; sent: PublishedDiagnostics[] } {
  const sent: PublishedDiagnostics[] = [];
  return { hub: new DiagnosticsHub((p) => sent.push(p)), sent };
}

describe("DiagnosticsHub", () => {
  it("publishes every source's list together, so a publish from one never erases another's", () => {
    const { hub: h, sent } = hub();
    h.set("child", "file:///a.ts", [at(1, "type error", "typescript")], 3);
    h.set("review", "file:///a.ts", [at(5, "proposed change")]);
    expect(sent.at(-1)!.diagnostics.map((d) => d.message)).toEqual(["type error", "proposed change"]);
    // The wrapped server publishes again (its error fixed): lockstep's entry stays.
    h.set("child", "file:///a.ts", [], 4);
    expect(sent.at(-1)!.diagnostics.map((d) => d.message)).toEqual(["proposed change"]);
    // The staged change is decided: the wrapped server's new list is not taken with it.
    h.set("child", "file:///a.ts", [at(2, "unused", "typescript")], 5);
    h.set("review", "file:///a.ts", []);
    expect(sent.at(-1)).toEqual({
      uri: "file:///a.ts",
      diagnostics: [at(2, "unused", "typescript")],
      version: 5,
    });
  });

  it("passes the wrapped server's version on only when its list is all there is", () => {
    const { hub: h, sent } = hub();
    h.set("child", "file:///a.ts", [at(1, "x")], 7);
    expect(sent.at(-1)!.version).toBe(7);
    h.set("review", "file:///a.ts", [at(3, "proposed change (+1 −0)")]);
    expect(sent.at(-1)!.version).toBeUndefined();
  });

  it("keeps documents apart and clears a document with an empty publish", () => {
    const { hub: h, sent } = hub();
    h.set("review", "file:///a.ts", [at(1, "a")]);
    h.set("review", "file:///b.ts", [at(1, "b")]);
    h.set("review", "file:///a.ts", []);
    expect(sent.at(-1)).toEqual({ uri: "file:///a.ts", diagnostics: [] });
    expect(h.get("review", "file:///b.ts").map((d) => d.message)).toEqual(["b"]);
    // Clearing a document nobody spoke about still publishes, so the editor's stale list goes.
    h.set("child", "file:///c.ts", [], 2);
    expect(sent.at(-1)).toEqual({ uri: "file:///c.ts", diagnostics: [], version: 2 });
  });
});
