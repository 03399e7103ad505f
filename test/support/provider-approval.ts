// What the approval tests of each provider share: a three-line a.ts, a safe_patch's arguments
// that change one of its lines, and the language server launched on it as Helix with the
// provider's settings, the user's answer to each prompt given and every prompt recorded. Knows
// nothing of the provider's wire format (each test's fake endpoint and scripts say it).
import { createPatch } from "diff";
import type { ShowMessageRequestParams } from "vscode-languageserver-protocol";
import { pick } from "./agent-scripts.js";
import { launch, sha256, type TestClient } from "./lsp-client.js";

export const A = ["export const a = 1;", "export const b = 2;", "export const c = 3;", ""].join("\n");

/** safe_patch's arguments replacing `from` with `to` in `text` (a.ts as the model last read it). */
export function safePatchArgs(text: string, from: string, to: string): Record<string, unknown> {
  return {
    file_path: "a.ts",
    unified_diff: createPatch("a.ts", text, text.replace(from, to)),
    base_content_sha256: sha256(text),
  };
}

/** The server on a.ts with `settings` (initializationOptions), a.ts open; `answer` picks each prompt's action. */
export async function launchOnA(
  settings: Record<string, unknown>,
  answer?: (p: ShowMessageRequestParams) => string,
  env?: Record<string, string>,
): Promise<{ client: TestClient; prompts: ShowMessageRequestParams[] }> {
  const prompts: ShowMessageRequestParams[] = [];
  const client = await launch(
    { "a.ts": A },
    {
      style: "helix",
      ...(env ? { env } : {}),
      initializationOptions: settings,
      ...(answer
        ? {
            showMessageRequest: (p: ShowMessageRequestParams) => (
              prompts.push(p),
              Promise.resolve(pick(p, answer(p)))
            ),
          }
        : {}),
    },
  );
  await client.open("a.ts");
  return { client, prompts };
}
