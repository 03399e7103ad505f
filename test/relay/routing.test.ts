// The relay's routing with a real language server wrapped: code actions from
// both (the child's first), commands by name, requests from both servers to the
// editor under ids that never collide, cancellation following its request, and
// a storm of incremental changes reaching both in order.
import type { CodeAction, Command, Diagnostic } from "vscode-languageserver-protocol";
import { CancellationTokenSource } from "vscode-jsonrpc/node.js";
import { afterEach, describe, expect, it } from "vitest";
import path from "node:path";
import { BIG_TEXT, expectCancelledPatch } from "../support/large-patch.js";
import { cleanup, launch, sha256 } from "../support/lsp-client.js";
import { diagnosticsOf, launchWrapped, TS_FILES } from "./wrap-support.js";

afterEach(cleanup);

const title = (a: CodeAction | Command): string => a.title;
const isLockstep = (t: string): boolean => t.startsWith("lockstep") || t.startsWith("Fix with lockstep");

describe("wrap mode: routing", () => {
  it("sends the editor's initialize to the child as it came, but for initializationOptions.lockstep", async () => {
    const late = ["--wrap", "--", process.execPath, path.resolve("test/relay/fixtures/late-server.mjs")];
    const options = { lockstep: { approval: "auto" }, preferences: { quoteStyle: "single" } };
    const client = await launch(
      { "a.txt": "x\n" },
      { style: "neovim", args: late, initializationOptions: options },
    );
    const received = await client.request<Record<string, unknown>>("late/initializeParams", {});
    expect(received["initializationOptions"]).toEqual({ preferences: { quoteStyle: "single" } });
    expect(received).toMatchObject({
      processId: process.pid,
      rootUri: expect.stringMatching(/^file:/) as string,
      clientInfo: { name: "Neovim" },
    });
    expect((received["capabilities"] as Record<string, unknown>)["workspace"]).toBeTruthy();
    // lockstep took its own: the setting is in force.
    expect(await client.command("session", {})).toMatchObject({ ok: true, data: { approval: "auto" } });
  }, 30_000);

  it("asks both for code actions on the child's diagnostic and lists the child's first, then Fix with lockstep", async () => {
    const client = await launchWrapped({ approval: "auto" }, "helix", {
      ...TS_FILES,
      "src/b.ts": "export const total = missing();\n",
    });
    await client.open("src/b.ts", undefined, "typescript");
    const [error] = await diagnosticsOf(client, "src/b.ts", (d) =>
      d.some((x) => x.message.includes("missing")),
    );
    const actions = (await client.codeActions("src/b.ts", error!.range, [error as Diagnostic])).map(title);
    const firstOwn = actions.findIndex(isLockstep);
    expect(firstOwn).toBeGreaterThan(0); // the child offered something, and it comes first
    expect(actions.slice(0, firstOwn).some(isLockstep)).toBe(false);
    expect(actions.slice(firstOwn).every(isLockstep)).toBe(true);
    expect(actions).toContain("Fix with lockstep: Cannot find name 'missing'.");
  }, 60_000);

  it("routes lockstep.* to lockstep and the child's commands to the child, whose workspace/applyEdit reaches the editor", async () => {
    const files = {
      ...TS_FILES,
      "src/c.ts": "export const a = 1;\nexport const b = 2;\n",
      "src/d.ts": "import { b, a } from './c';\nexport const sum = a + b;\n",
    };
    const client = await launchWrapped({ approval: "auto" }, "helix", files);
    await client.open("src/d.ts", undefined, "typescript");
    await diagnosticsOf(client, "src/d.ts", () => true).catch(() => undefined);
    await client.request("workspace/executeCommand", {
      command: "_typescript.organizeImports",
      arguments: [client.uri("src/d.ts").replace("file://", "")],
    });
    expect(client.buffer("src/d.ts")!.text).toBe("import { a, b } from './c';\nexport const sum = a + b;\n");
    // lockstep sees the child's edit: it came through the same didChange stream.
    expect(await client.command("read_file", { file_path: "src/d.ts" })).toMatchObject({
      ok: true,
      data: { content: "import { a, b } from './c';\nexport const sum = a + b;\n", version: 2 },
    });
    // An unknown lockstep command is lockstep's error, not the child's.
    await expect(
      client.request("workspace/executeCommand", { command: "lockstep.nope" }),
    ).resolves.toMatchObject({ ok: false, error: { code: "invalid_argument" } });
  }, 60_000);

  it("keeps requests from the child and from lockstep apart while both edit the editor's buffers at once", async () => {
    const rounds = 6;
    const files: Record<string, string> = {
      ...TS_FILES,
      "src/c.ts": "export const a = 1;\nexport const b = 2;\n",
    };
    for (let i = 0; i < rounds; i++) {
      files[`src/imp${i}.ts`] = `import { b, a } from './c';\nexport const s${i} = a + b;\n`;
      files[`src/own${i}.ts`] = `export const v${i} = ${i};\n`;
    }
    // The editor holds every applyEdit until all are in (or a while has passed), so both servers' ids are out at once.
    let arrived = 0;
    const wakers: (() => void)[] = [];
    const barrier = (): Promise<void> =>
      new Promise((resolve) => {
        wakers.push(resolve);
        if (++arrived >= 2 * rounds) for (const wake of wakers.splice(0)) wake();
        setTimeout(resolve, 1500);
      });
    const client = await launchWrapped({ approval: "auto" }, "helix", files, { beforeApplyEdit: barrier });
    for (let i = 0; i < rounds; i++) {
      await client.open(`src/imp${i}.ts`, undefined, "typescript");
      await client.open(`src/own${i}.ts`, undefined, "typescript");
    }
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < rounds; i++) {
      work.push(
        client.request("workspace/executeCommand", {
          command: "_typescript.organizeImports",
          arguments: [client.uri(`src/imp${i}.ts`).replace("file://", "")],
        }),
      );
      const before = `export const v${i} = ${i};\n`;
      work.push(
        client.command("write_file", {
          file_path: `src/own${i}.ts`,
          content: `export const v${i} = ${i * 10 + 1};\n`,
          base_content_sha256: sha256(before),
        }),
      );
    }
    const answers = await Promise.all(work);
    for (let i = 0; i < rounds; i++) {
      expect(answers[2 * i + 1], JSON.stringify(answers[2 * i + 1]).slice(0, 600)).toMatchObject({
        ok: true,
        data: { applied: true },
      });
      expect(client.buffer(`src/imp${i}.ts`)!.text).toBe(
        `import { a, b } from './c';\nexport const s${i} = a + b;\n`,
      );
      expect(client.buffer(`src/own${i}.ts`)!.text).toBe(`export const v${i} = ${i * 10 + 1};\n`);
    }
    // Every applyEdit the editor saw was answered once, and both servers' came through.
    const applies = client.requests.filter((r) => r.method === "workspace/applyEdit");
    expect(applies).toHaveLength(2 * rounds);
    expect(applies.every((r) => (r.result as { applied?: boolean } | undefined)?.applied === true)).toBe(
      true,
    );
    expect(arrived).toBe(2 * rounds);
  }, 60_000);

  it("$/cancelRequest follows its request: to lockstep for its command (nothing applied), to the child for the rest (answered)", async () => {
    // big.txt: a file typescript-language-server leaves alone.
    const client = await launchWrapped({ approval: "auto" }, "helix", { ...TS_FILES, "big.txt": BIG_TEXT });
    await expectCancelledPatch(client, "big.txt");

    await client.open("src/a.ts", undefined, "typescript");
    const uri = client.uri("src/a.ts");
    const requests = Array.from({ length: 20 }, () => {
      const token = new CancellationTokenSource();
      const request = client.connection.sendRequest(
        "textDocument/completion",
        { textDocument: { uri }, position: { line: 0, character: 0 } },
        token.token,
      );
      token.cancel();
      return request.then(
        () => "answered",
        (e: unknown) => String(e),
      );
    });
    // Every one is settled: by the child's answer or its cancellation, none left hanging.
    expect(await Promise.all(requests)).toHaveLength(20);
    await expect(
      client.request("textDocument/hover", { textDocument: { uri }, position: { line: 0, character: 14 } }),
    ).resolves.toBeTruthy();
  }, 60_000);

  it("a storm of incremental changes reaches lockstep and the child in order", async () => {
    const client = await launchWrapped({ approval: "auto" }, "helix", {
      ...TS_FILES,
      "src/e.ts": "export const ok = 1;\n//END\n",
    });
    await client.open("src/e.ts", undefined, "typescript");
    const typed = 'export const n: number = "x";\n';
    for (const ch of typed) await client.type("src/e.ts", "//END", `${ch}//END`);
    const buffer = client.buffer("src/e.ts")!;
    expect(buffer.text).toBe(`export const ok = 1;\n${typed}//END\n`);
    expect(buffer.version).toBe(1 + typed.length);
    expect(await client.command("read_file", { file_path: "src/e.ts" })).toMatchObject({
      ok: true,
      data: { version: buffer.version, content: buffer.text },
    });
    // The child's view of the text is the same: one error, where the typed string is.
    const shown = await diagnosticsOf(
      client,
      "src/e.ts",
      (d) => d.length === 1 && d[0]!.range.start.line === 1,
      0,
    );
    expect(shown[0]!).toMatchObject({
      message: expect.stringContaining("not assignable to type 'number'") as string,
      range: { start: { line: 1, character: 13 } },
    });
  }, 60_000);
});
