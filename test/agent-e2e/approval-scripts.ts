// What the approval tests share: the "ask" setting, a prompt handler that records every
// showMessageRequest and picks an action, and a safe_patch built on the editor's buffer at the
// moment the model's request comes. Knows nothing of which door or editor style a test drives.
import type { MessageActionItem, ShowMessageRequestParams } from "vscode-languageserver-protocol";
import type { FakeTurn } from "../support/fake-gemini.js";
import {
  patchCall,
  pick,
  replaceLineDiff,
  sha256Hex,
  turn,
  type AgentRig,
} from "../support/agent-scripts.js";

export const ASK = { approval: "ask" } as const;

/** A prompt handler that records every prompt and answers with the action starting with `answer()`. */
export function prompter(answer: (params: ShowMessageRequestParams) => string): {
  prompts: ShowMessageRequestParams[];
  handler: (params: ShowMessageRequestParams) => Promise<MessageActionItem | null>;
} {
  const prompts: ShowMessageRequestParams[] = [];
  return {
    prompts,
    handler: (params) => {
      prompts.push(params);
      return Promise.resolve(pick(params, answer(params)));
    },
  };
}

/** A safe_patch built, when the request comes, on what the editor's buffer holds now. */
export function patchBuffer(rig: () => AgentRig, oldLine: string, newLine: string): FakeTurn {
  const text = rig().client.buffer("a.ts")?.text;
  if (text === undefined) return turn({ text: ["a.ts is not open"] });
  return turn({
    calls: [patchCall("a.ts", replaceLineDiff("a.ts", text, oldLine, newLine), sha256Hex(text))],
  });
}
