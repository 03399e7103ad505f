// lockstep.session tells the truth about the wrapped server: `failed`, with the
// reason in one line and the features the editor lost, when it answered
// initialize with an error (as typescript-language-server does when it rejects
// its TypeScript) or exited before answering; `running` when it is up.
import path from "node:path";
import type { ShowMessageParams } from "vscode-languageserver-protocol";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, launch, type TestClient } from "../support/lsp-client.js";
import { alive, eventually, pidIn, pidsIn } from "./wrap-support.js";

afterEach(cleanup);

const SCRIPTED = path.resolve("test/relay/fixtures/scripted-server.mjs");

async function wrappedBy(
  mode: string,
): Promise<{ client: TestClient; childPid: () => Promise<number>; pidFile: string }> {
  const client = await launch(
    { "a.ts": "export const a = 1;\n" },
    {
      style: "neovim",
      args: ["--wrap", "--", SCRIPTED, mode, "child.pid"],
      initializationOptions: { lockstep: { approval: "auto" } },
    },
  );
  return { client, childPid: () => pidIn(client.path("child.pid")), pidFile: client.path("child.pid") };
}

async function wrapped(client: TestClient): Promise<unknown> {
  const session = await client.command("session", {});
  return session.ok ? session.data["wrapped"] : session;
}

const errorsShown = (client: TestClient): string[] =>
  client.notifications
    .filter((n) => n.method === "window/showMessage" && (n.params as ShowMessageParams).type === 1)
    .map((n) => (n.params as ShowMessageParams).message);

describe("wrap mode: lockstep.session's wrapped", () => {
  it("is running, with no reason, while the child is up", async () => {
    const { client } = await wrappedBy("ok");
    expect(client.initializeResult!.capabilities.hoverProvider).toBe(true);
    expect(await wrapped(client)).toEqual({ server: "scripted-server.mjs", state: "running", restarts: 0 });
  }, 30_000);

  it("is failed, with the child's error and what the editor lost, when the child answers initialize with an error; the child is ended", async () => {
    const { client, childPid } = await wrappedBy("init-error");
    // The editor was given lockstep alone: none of the child's features were announced.
    expect(client.initializeResult!.serverInfo?.name).toBe("lockstep");
    expect(client.initializeResult!.capabilities.hoverProvider).toBeUndefined();
    const status = (await wrapped(client)) as Record<string, unknown>;
    expect(status).toMatchObject({ server: "scripted-server.mjs", state: "failed", restarts: 0 });
    expect(status["reason"]).toMatch(
      /^it did not initialize: .*Could not find a valid TypeScript installation/,
    );
    expect(status["reason"]).not.toContain("\n");
    // Never initialized: the features Neovim asks a language server for, and its diagnostics.
    expect(status["missing"]).toEqual(
      expect.arrayContaining(["hover", "completion", "definition", "references", "diagnostics"]),
    );
    expect(errorsShown(client)).toEqual([expect.stringContaining("did not initialize")]);
    // A child that refused to initialize is of no use: it is told to exit, and goes.
    const refused = await childPid();
    await eventually(() => !alive(refused), "the refused child to end");
    await expect(
      client.request("textDocument/hover", {
        textDocument: { uri: client.uri("a.ts") },
        position: { line: 0, character: 1 },
      }),
    ).rejects.toThrow(/is not running/);
  }, 30_000);

  it("is failed, naming its exit and last words, when the child exits before answering initialize", async () => {
    const { client } = await wrappedBy("exit-before-init");
    const status = (await wrapped(client)) as Record<string, unknown>;
    expect(status).toMatchObject({ server: "scripted-server.mjs", state: "failed", restarts: 0 });
    expect(status["reason"]).toBe(
      "it did not initialize: it exited with code 3 (its last words: scripted-server: no runtime for this project)",
    );
    expect(status["missing"]).toEqual(expect.arrayContaining(["hover", "diagnostics"]));
    expect(errorsShown(client)).toHaveLength(1);
  }, 30_000);

  it("is failed, and the editor's initialize answered by lockstep alone, when the child does not answer initialize in 30 s; the child is ended", async () => {
    const started = Date.now();
    const { client, childPid } = await wrappedBy("mute");
    expect(Date.now() - started).toBeGreaterThanOrEqual(29_000);
    expect(client.initializeResult!.serverInfo?.name).toBe("lockstep");
    expect(await wrapped(client)).toMatchObject({
      state: "failed",
      reason: "it did not initialize: no answer in 30 s",
      missing: expect.arrayContaining(["hover"]) as string[],
    });
    expect(errorsShown(client)).toEqual([expect.stringContaining("did not initialize: no answer in 30 s")]);
    const mute = await childPid();
    await eventually(() => !alive(mute), "the mute child to be killed", 10_000);
  }, 90_000);

  it("lists what the child had announced when it dies for good after initializing", async () => {
    const { client, childPid, pidFile } = await wrappedBy("ok");
    // Four deaths within three minutes: the last is for good.
    for (let death = 1; death <= 4; death++) {
      const pid = await childPid();
      process.kill(pid, "SIGKILL");
      await eventually(() => errorsShown(client).length === death, `message ${death}`);
      if (death === 4) break;
      await eventually(
        () => [pidsIn(pidFile)[0]].some((p) => p !== undefined && p !== pid && alive(p)),
        "the restarted child",
      );
      // Up again, and the session says what happened.
      expect(await wrapped(client)).toMatchObject({
        restarts: death,
        reason: "restarted after it was killed by SIGKILL",
      });
    }
    expect(await wrapped(client)).toEqual({
      server: "scripted-server.mjs",
      state: "failed",
      restarts: 3,
      reason: "it was killed by SIGKILL",
      missing: ["hover", "completion", "definition", "diagnostics"],
    });
  }, 60_000);
});
