// What another server's tool looks like to the model: names every provider accepts,
// schemas checked, results bounded with images and resources named, not inlined.
import { describe, expect, it } from "vitest";
import { checkTool, functionName, headAndTail, resultText } from "../../server/src/mcp/tool-shape.js";

describe("MCP tools as the model sees them", () => {
  it("prefixes, sanitises and bounds names, unique per session", () => {
    const taken = new Set<string>();
    expect(functionName("git", "log", taken)).toBe("mcp__git__log");
    expect(functionName("git", "say hi!", taken)).toBe("mcp__git__say_hi_");
    const long = functionName("git", "y".repeat(300), taken);
    const again = functionName("git", "y".repeat(301), taken);
    expect([long.length, again.length]).toEqual([64, 64]);
    expect(again).not.toBe(long);
    for (const n of taken) expect(n).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });

  it.each([
    [{ name: "a", inputSchema: { type: "object" } }, undefined],
    [{ name: "a", inputSchema: { type: "string" } }, 'inputSchema must have type "object"'],
    [
      { name: "a", inputSchema: { type: "object", properties: { x: { type: "strng" } } } },
      'unknown type "strng"',
    ],
    [{ name: "a", inputSchema: { type: "object", properties: [] } }, "properties is not an object"],
    [{ name: "a", inputSchema: { type: "object", required: "x" } }, "required is not a list"],
    [{ name: "a" }, "inputSchema is not an object"],
    [{ name: "z".repeat(300), inputSchema: { type: "object" } }, "its name is 300 characters"],
    [{ inputSchema: { type: "object" } }, "the tool has no name"],
  ])("checks a listed tool: %j", (raw, reason) => {
    const checked = checkTool(raw);
    if (reason === undefined) expect(checked.ok).toBe(true);
    else expect(checked.ok ? "offered" : checked.reason).toContain(reason);
  });

  it("keeps a long result's head and tail, and names images and resources", () => {
    const cut = headAndTail(`HEAD${"x".repeat(100_000)}TAIL`);
    expect(cut.truncated).toBe(true);
    expect(cut.text.length).toBeLessThan(31_000);
    expect(cut.text.startsWith("HEAD")).toBe(true);
    expect(cut.text.endsWith("TAIL")).toBe(true);
    const shown = resultText(
      [
        { type: "text", text: "hi" },
        { type: "image", mimeType: "image/png", data: "AAAA" },
        { type: "resource", resource: { uri: "file:///a", text: "SECRET" } },
      ],
      undefined,
    );
    expect(shown.text).toBe("hi\n(image image/png, 3 bytes, not shown)\n(resource file:///a, not shown)");
    expect(resultText([], { n: 1 }).text).toBe('{"n":1}');
  });
});
