// lockstep driven by acpx, a headless ACP client from npm that nobody here
// wrote: `acpx --agent "lockstep acp" exec` reads, asks, and writes through its
// own fs methods, as any ACP editor would.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, edit } from "./scripted-editor.js";

const ACPX = path.resolve("node_modules/.bin/acpx");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("lockstep acp under acpx", () => {
  it("runs a turn that reads and edits a file, the diff and the permission going through acpx", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "lockstep-acpx-"));
    const home = mkdtempSync(path.join(os.tmpdir(), "lockstep-acpx-home-"));
    dirs.push(root, home);
    writeFileSync(path.join(root, "a.ts"), "export const retries = 3;\n");
    const script = path.join(home, "script.json");
    writeFileSync(
      script,
      JSON.stringify({
        turns: [
          { text: ["Reading a.ts."], calls: [{ name: "read_file", args: { file_path: "a.ts" } }] },
          {
            calls: [edit("a.ts", "retries = 3", "retries = 5")],
          },
          { text: ["Raised to 5."] },
        ],
      }),
    );
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        ACPX,
        "--agent",
        `${process.execPath} ${BIN} acp --replay ${script}`,
        "--format",
        "json",
        "--approve-all",
        "--cwd",
        root,
        "exec",
        "raise the retries to 5",
      ],
      {
        env: { ...process.env, HOME: home, XDG_CONFIG_HOME: home, XDG_STATE_HOME: home },
        timeout: 60_000,
      },
    );
    const messages = stdout
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map(
        (l) =>
          JSON.parse(l) as {
            method?: string;
            params?: { update?: { sessionUpdate?: string; content?: { type: string; newText?: string }[] } };
            result?: { stopReason?: string };
          },
      );
    expect(messages.some((m) => m.method === "session/request_permission")).toBe(true);
    expect(
      messages.some((m) =>
        m.params?.update?.content?.some?.(
          (c) => c.type === "diff" && c.newText === "export const retries = 5;\n",
        ),
      ),
    ).toBe(true);
    expect(messages.some((m) => m.method === "fs/write_text_file")).toBe(true);
    expect(messages.some((m) => m.result?.stopReason === "end_turn")).toBe(true);
    expect(readFileSync(path.join(root, "a.ts"), "utf8")).toBe("export const retries = 5;\n");
  });
});
