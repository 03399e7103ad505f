// A file of 40,000 lines and a diff of thousands of bare-header hunks over it,
// for the tests that show one large input does not hold the server, and the
// check that a cancelled patch of it answers `cancelled` and writes nothing.
import { CancellationTokenSource } from "vscode-jsonrpc/node.js";
import { expect } from "vitest";
import { sha256, type TestClient } from "./lsp-client.js";

export const BIG_LINES = Array.from({ length: 40_000 }, (_, i) => `const v${i} = ${i};`);
export const BIG_TEXT = BIG_LINES.join("\n") + "\n";

/** A bare-header hunk changing line `at` of every `step` lines, `count` of them. */
export function bigDiff(count: number, step: number): { diff: string; after: string } {
  const after = [...BIG_LINES];
  let diff = "";
  for (let k = 0; k < count; k++) {
    const at = 1 + k * step;
    after[at] = `const v${at} = ${at} + 1;`;
    diff += `@@ @@\n ${BIG_LINES[at - 1]}\n-${BIG_LINES[at]}\n+${after[at]}\n ${BIG_LINES[at + 1]}\n`;
  }
  return { diff, after: after.join("\n") + "\n" };
}

/**
 * Sends lockstep `command` with `argument` and cancels it `afterMs` later: either the server
 * answers `cancelled`, or the client gave up on its side; never a result.
 */
export async function expectCancelled(
  client: TestClient,
  command: string,
  argument: unknown,
  afterMs: number,
): Promise<void> {
  const source = new CancellationTokenSource();
  const pending = client.connection.sendRequest(
    "workspace/executeCommand",
    { command, arguments: [argument] },
    source.token,
  );
  setTimeout(() => source.cancel(), afterMs);
  const answer = (await pending.catch((e: unknown) => ({ cancelledByClient: String(e) }))) as Record<
    string,
    unknown
  >;
  if (!("cancelledByClient" in answer))
    expect(answer).toMatchObject({ ok: false, error: { code: "cancelled" } });
}

/** A 13,000-hunk safe_patch of `file` (holding BIG_TEXT), cancelled 30 ms after it was sent, writes nothing. */
export async function expectCancelledPatch(client: TestClient, file: string): Promise<void> {
  await expectCancelled(
    client,
    "lockstep.safe_patch",
    { file_path: file, unified_diff: bigDiff(13_000, 3).diff, base_content_sha256: sha256(BIG_TEXT) },
    30,
  );
  expect(await client.command("read_file", { file_path: file })).toMatchObject({
    ok: true,
    data: { sha256: sha256(BIG_TEXT) },
  });
}
