// The server as a process: what it announces, and how it ends.
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, launch, sha256 } from "../support/lsp-client.js";

afterEach(cleanup);

/** The commands DESIGN.md's table promises. */
const DESIGN_COMMANDS = [
  "lockstep.read_file",
  "lockstep.read_many_files",
  "lockstep.list_files",
  "lockstep.search_files",
  "lockstep.find_files",
  "lockstep.write_file",
  "lockstep.safe_patch",
  "lockstep.edit",
  "lockstep.apply_edit_blocks",
  "lockstep.apply_patch",
  "lockstep.ask",
  "lockstep.job",
  "lockstep.cancel",
  "lockstep.session",
  "lockstep.reset_session",
  "lockstep.review",
  "lockstep.decide",
  "lockstep.revert",
  "lockstep.sessions",
  "lockstep.resume",
];

describe("initialize", () => {
  it("announces every command of the design and the capabilities, the same for every editor", async () => {
    for (const style of ["helix", "neovim", "eglot", "no-apply-edit"] as const) {
      const client = await launch({}, { style });
      const result = client.initializeResult!;
      expect(result.serverInfo?.name).toBe("lockstep");
      const commands = result.capabilities.executeCommandProvider?.commands ?? [];
      expect(commands).toEqual(expect.arrayContaining(DESIGN_COMMANDS));
      expect(new Set(commands).size).toBe(commands.length);
      expect(result.capabilities).toMatchInlineSnapshot(`
        {
          "codeActionProvider": {
            "codeActionKinds": [
              "quickfix",
              "source",
              "refactor.rewrite",
            ],
          },
          "executeCommandProvider": {
            "commands": [
              "lockstep.read_file",
              "lockstep.read_many_files",
              "lockstep.list_files",
              "lockstep.search_files",
              "lockstep.find_files",
              "lockstep.write_file",
              "lockstep.safe_patch",
              "lockstep.edit",
              "lockstep.apply_edit_blocks",
              "lockstep.apply_patch",
              "lockstep.ask",
              "lockstep.job",
              "lockstep.cancel",
              "lockstep.session",
              "lockstep.reset_session",
              "lockstep.review",
              "lockstep.decide",
              "lockstep.revert",
              "lockstep.sessions",
              "lockstep.resume",
              "lockstep.trust",
            ],
          },
          "textDocumentSync": {
            "change": 2,
            "openClose": true,
          },
          "workspace": {
            "workspaceFolders": {
              "changeNotifications": true,
              "supported": true,
            },
          },
        }
      `);
      // Helix offers utf-8 first; with no positionEncoding in the answer, positions stay UTF-16.
      expect(result.capabilities.positionEncoding ?? "utf-16").toBe("utf-16");
      await client.shutdown();
    }
  });
});

describe("ending", () => {
  it("exits with 0 after shutdown and exit", async () => {
    const client = await launch({ "a.txt": "a\n" }, { style: "helix" });
    await client.open("a.txt");
    expect(await client.shutdown()).toBe(0);
    expect(client.alive).toBe(false);
  });

  it("exits with 1 on exit without shutdown", async () => {
    const client = await launch({}, { style: "neovim" });
    expect(await client.exitWithoutShutdown()).toBe(1);
  });

  it("ends when the client closes its pipes while idle", async () => {
    const client = await launch({}, { style: "neovim" });
    await client.disconnect(5000);
    expect(client.alive).toBe(false);
  });

  it("ends when the client disappears in the middle of a command", async () => {
    const client = await launch({ "a.txt": "one\ntwo\n" }, { style: "helix" });
    const buffer = await client.open("a.txt");
    let arrived!: () => void;
    const applyEditArrived = new Promise<void>((resolve) => (arrived = resolve));
    // The editor never answers the edit: the server is inside safe_patch when the pipes close.
    client.beforeApplyEdit = () => {
      arrived();
      return new Promise<void>(() => undefined);
    };
    const pending = client.command("safe_patch", {
      file_path: "a.txt",
      unified_diff: "@@ @@\n one\n-two\n+2\n",
      base_content_sha256: sha256(buffer.text),
    });
    pending.catch(() => undefined);
    await applyEditArrived;
    const code = await client.disconnect(5000);
    expect(client.alive).toBe(false);
    expect(code).not.toBe(0);
  });
});
