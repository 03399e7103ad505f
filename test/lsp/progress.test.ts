// Work-done progress for long commands, where the client advertises it.
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, launch } from "../support/lsp-client.js";

afterEach(cleanup);

/** 120 small files under src/. */
const FILES = Object.fromEntries(
  Array.from({ length: 120 }, (_, i) => [
    `src/file${String(i).padStart(3, "0")}.ts`,
    `export const n${i} = ${i};\n`,
  ]),
);

type Progress = {
  token: string | number;
  value: { kind: "begin" | "report" | "end"; title?: string; message?: string; percentage?: number };
};

describe("progress", () => {
  it("read_many_files over 100+ files creates a progress token and sends begin, report and end on it", async () => {
    const client = await launch(FILES, { style: "helix", workDoneProgress: true });
    const result = await client.command("read_many_files", { file_paths: ["src/*.ts"] });
    expect(result.ok).toBe(true);
    expect((result.data?.["files"] as unknown[]).length).toBe(120);

    const create = await client.waitForRequest("window/workDoneProgress/create");
    const token = (create.params as { token: string | number }).token;
    const onToken = (kind: string) => (p: unknown) =>
      (p as Progress).token === token && (p as Progress).value.kind === kind;
    await client.waitForNotification("$/progress", onToken("begin"));
    await client.waitForNotification("$/progress", onToken("report"));
    await client.waitForNotification("$/progress", onToken("end"));

    const kinds = client.notifications
      .filter((n) => n.method === "$/progress" && (n.params as Progress).token === token)
      .map((n) => (n.params as Progress).value.kind);
    expect(kinds[0]).toBe("begin");
    expect(kinds.at(-1)).toBe("end");
    expect(kinds.filter((k) => k === "begin" || k === "end")).toEqual(["begin", "end"]);
    const percentages = client.notifications.flatMap((n) =>
      n.method === "$/progress" && (n.params as Progress).value.kind === "report"
        ? [(n.params as Progress).value.percentage ?? 0]
        : [],
    );
    expect([...percentages].sort((a, b) => a - b)).toEqual(percentages);
  });

  it("sends no progress to a client that did not ask for it", async () => {
    const client = await launch(FILES, { style: "eglot", workDoneProgress: false });
    expect((await client.command("read_many_files", { file_paths: ["src/*.ts"] })).ok).toBe(true);
    // The token would have been created during the command, before its answer.
    expect(client.requests.map((r) => r.method)).not.toContain("window/workDoneProgress/create");
    expect(client.notifications.map((n) => n.method)).not.toContain("$/progress");
  });
});
