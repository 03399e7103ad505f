// `npm run bundle`, after esbuild: writes dist/bundle/lockstep.cjs.cache by running
// the bundled server through one short LSP session, as an editor would, with
// LOCKSTEP_CODE_CACHE=write. The cache bin/load-bundle.js writes at exit then holds
// what a real session compiles (initialize, open buffers, settings, read_file,
// safe_patch through workspace/applyEdit), not only the top level.
// Fails the build when the server does not answer or no cache is written.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node.js";

const BIN = fileURLToPath(new URL("../bin/lockstep.js", import.meta.url));
const CACHE = fileURLToPath(new URL("../dist/bundle/lockstep.cjs.cache", import.meta.url));
const TIMEOUT_MS = 20_000;

const BEFORE = 'export function greet(name: string): string {\n  return "Hello, " + name;\n}\n';
const AFTER = "export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n";
const DIFF =
  '@@ @@\n export function greet(name: string): string {\n-  return "Hello, " + name;\n+  return `Hello, ${name}!`;\n }\n';

const sha256 = (text) => createHash("sha256").update(text).digest("hex");

const NEVER = new Promise(() => undefined);

/** `promise`, or a rejection naming `what` when `gone` rejects first or TIMEOUT_MS pass. */
function answer(promise, what, gone = NEVER) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the server did not answer ${what} within ${TIMEOUT_MS / 1000} s`)),
      TIMEOUT_MS,
    );
  });
  return Promise.race([promise, timeout, gone]).finally(() => clearTimeout(timer));
}

/** An envelope's data; throws with the envelope when the command refused. */
function dataOf(envelope, command) {
  if (envelope?.ok !== true) throw new Error(`${command} answered ${JSON.stringify(envelope)}`);
  return envelope.data;
}

/** `text` with LSP TextEdits applied (positions count UTF-16 code units, as JS strings do). */
function applyEdits(text, edits) {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
  const offset = (p) => Math.min((starts[p.line] ?? text.length) + p.character, text.length);
  const sorted = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  return sorted.reduce(
    (t, e) => t.slice(0, offset(e.range.start)) + e.newText + t.slice(offset(e.range.end)),
    text,
  );
}

async function session(root) {
  const file = path.join(root, "greet.ts");
  writeFileSync(file, BEFORE);
  const uri = pathToFileURL(file).href;
  const buffer = { text: BEFORE, version: 1 };

  const env = { ...process.env, LOCKSTEP_CODE_CACHE: "write" };
  // V8 flags in NODE_OPTIONS would make a cache that a plain `node bin/lockstep.js` rejects.
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, [BIN, "--stdio"], {
    cwd: root,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (b) => (stderr += b));
  const exited = new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve(code ?? signal));
  });
  const gone = exited.then((code) =>
    Promise.reject(new Error(`the server exited (${code}) before it answered`)),
  );
  gone.catch(() => undefined); // awaited only through the races below
  const reply = (promise, what) => answer(promise, what, gone);
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  connection.onRequest("workspace/configuration", (params) => params.items.map(() => ({})));
  connection.onRequest("workspace/applyEdit", (params) => {
    const changes = params.edit.documentChanges ?? [];
    const edits = changes.filter((c) => c.textDocument?.uri === uri).flatMap((c) => c.edits);
    if (edits.length === 0) return { applied: false, failureReason: "the warm-up only edits greet.ts" };
    buffer.text = applyEdits(buffer.text, edits);
    buffer.version++;
    void connection.sendNotification("textDocument/didChange", {
      textDocument: { uri, version: buffer.version },
      contentChanges: [{ text: buffer.text }],
    });
    return { applied: true };
  });
  connection.onRequest(() => null); // client/registerCapability, window/workDoneProgress/create
  connection.listen();

  try {
    await reply(
      connection.sendRequest("initialize", {
        processId: process.pid,
        rootUri: pathToFileURL(root).href,
        workspaceFolders: [{ uri: pathToFileURL(root).href, name: "warm-up" }],
        capabilities: {
          workspace: {
            applyEdit: true,
            workspaceEdit: { documentChanges: true },
            configuration: true,
            didChangeConfiguration: { dynamicRegistration: true },
          },
          window: { workDoneProgress: true },
        },
      }),
      "initialize",
    );
    await connection.sendNotification("initialized", {});
    await connection.sendNotification("workspace/didChangeConfiguration", { settings: { lockstep: {} } });
    await connection.sendNotification("textDocument/didOpen", {
      textDocument: { uri, languageId: "typescript", version: buffer.version, text: buffer.text },
    });
    const command = (name, argument) =>
      reply(
        connection.sendRequest("workspace/executeCommand", { command: name, arguments: [argument] }),
        name,
      );
    const read = dataOf(await command("lockstep.read_file", { file_path: "greet.ts" }), "lockstep.read_file");
    dataOf(
      await command("lockstep.safe_patch", {
        file_path: "greet.ts",
        unified_diff: DIFF,
        base_content_sha256: read.sha256,
      }),
      "lockstep.safe_patch",
    );
    if (buffer.text !== AFTER)
      throw new Error(`safe_patch left the buffer as ${JSON.stringify(buffer.text)}`);
    const reread = dataOf(
      await command("lockstep.read_file", { file_path: "greet.ts" }),
      "lockstep.read_file",
    );
    if (reread.sha256 !== sha256(AFTER))
      throw new Error(`read_file after safe_patch answered ${JSON.stringify(reread)}`);
    await reply(connection.sendRequest("shutdown"), "shutdown");
    await connection.sendNotification("exit");
    const code = await answer(exited, "exit");
    if (code !== 0) throw new Error(`the server exited with ${code}`);
  } catch (error) {
    child.kill();
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}${stderr ? `\nserver stderr:\n${stderr}` : ""}`,
    );
  } finally {
    connection.dispose();
  }
}

const root = realpathSync(mkdtempSync(path.join(tmpdir(), "lockstep-warm-")));
try {
  rmSync(CACHE, { force: true });
  await session(root);
  if (!existsSync(CACHE)) throw new Error(`the server exited without writing ${CACHE}`);
} catch (error) {
  process.stderr.write(`warm-code-cache: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  rmSync(root, { recursive: true, force: true });
}
