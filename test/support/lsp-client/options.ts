// How a test client is started: the editor style it imitates, the start
// options, the capabilities and clientInfo each style announces in initialize
// (facts from the shared EDITORS.md), and the script the server runs from.
import { existsSync } from "node:fs";
import path from "node:path";
import type {
  ApplyWorkspaceEditParams,
  ClientCapabilities,
  MessageActionItem,
  ShowMessageRequestParams,
} from "vscode-languageserver-protocol";
import type { TestClient } from "./test-client.js";

export type EditorStyle = "helix" | "neovim" | "eglot" | "no-apply-edit";

export interface StartOptions {
  root: string;
  style: EditorStyle;
  initializationOptions?: Record<string, unknown>;
  env?: Record<string, string>;
  showMessageRequest?: (params: ShowMessageRequestParams) => Promise<MessageActionItem | null>;
  /** Answers lockstep/approve (the question with the diffs in it); the client then says it takes it. */
  approve?: (params: unknown) => Promise<unknown>;
  /** The other questions the client shows itself through lockstep/approve (`command`, `call`). */
  approveKinds?: string[];
  configuration?: Record<string, unknown>;
  args?: string[];
  workDoneProgress?: boolean;
  /** Runs when a workspace/applyEdit arrives, before the client decides (e.g. the user types meanwhile). */
  beforeApplyEdit?: (params: ApplyWorkspaceEditParams, client: TestClient) => void | Promise<void>;
  /** Neovim's didChange debounce (ms). */
  debounceMs?: number;
  /**
   * Answers lockstep/saveFiles by saving the buffers named (lockstep's Neovim client does), or, with
   * `{refuse}`, by saving none and saying that as each one's reason (a read-only file, say).
   */
  saveFiles?: boolean | { refuse: string };
}

/** bin/lockstep.js of the project this file lives in (from test/support/lsp-client or its copy under dist/). */
export function serverEntry(): string {
  for (let dir = import.meta.dirname; ; dir = path.dirname(dir)) {
    const bin = path.join(dir, "bin", "lockstep.js");
    if (existsSync(bin) && existsSync(path.join(dir, "package.json"))) return bin;
    if (dir === path.dirname(dir)) throw new Error(`no bin/lockstep.js above ${import.meta.dirname}`);
  }
}

export function capabilitiesFor(options: StartOptions): ClientCapabilities {
  const { style } = options;
  const progress = options.workDoneProgress ?? (style === "helix" || style === "neovim");
  const window: NonNullable<ClientCapabilities["window"]> = {
    workDoneProgress: progress,
    ...(options.showMessageRequest
      ? { showMessage: { messageActionItem: { additionalPropertiesSupport: false } } }
      : {}),
    ...(style === "helix" ? { showDocument: { support: true } } : {}),
  };
  const codeAction = {
    dynamicRegistration: false,
    codeActionLiteralSupport: {
      codeActionKind: {
        valueSet: [
          "",
          "quickfix",
          "refactor",
          "refactor.extract",
          "refactor.inline",
          "refactor.rewrite",
          "source",
          "source.organizeImports",
        ],
      },
    },
  };
  const textDocument: ClientCapabilities["textDocument"] = {
    synchronization: {
      dynamicRegistration: false,
      didSave: true,
      willSave: style === "eglot",
      willSaveWaitUntil: style === "eglot",
    },
    codeAction:
      style === "helix"
        ? {
            ...codeAction,
            isPreferredSupport: true,
            disabledSupport: true,
            dataSupport: true,
            resolveSupport: { properties: ["edit", "command"] },
          }
        : codeAction,
    publishDiagnostics: { relatedInformation: true },
  };
  const configuration = options.configuration !== undefined;
  if (style === "no-apply-edit") {
    return { workspace: { workspaceFolders: true, configuration }, textDocument, window };
  }
  const resourceOperations =
    style === "eglot"
      ? undefined
      : style === "helix"
        ? ["create", "rename", "delete"]
        : ["rename", "create", "delete"];
  return {
    workspace: {
      applyEdit: true,
      workspaceEdit: {
        documentChanges: true,
        ...(resourceOperations
          ? { resourceOperations: resourceOperations as ("create" | "rename" | "delete")[] }
          : {}),
      },
      executeCommand: { dynamicRegistration: false },
      workspaceFolders: true,
      configuration,
      didChangeConfiguration: { dynamicRegistration: false },
    },
    textDocument,
    window,
    ...(options.saveFiles || options.approve
      ? {
          experimental: {
            ...(options.saveFiles ? { lockstep: { saveFiles: true } } : {}),
            ...(options.approve ? { lockstepApproval: true } : {}),
            ...(options.approve && options.approveKinds
              ? { lockstepApprovalKinds: options.approveKinds }
              : {}),
          },
        }
      : {}),
    ...(style === "helix" ? { general: { positionEncodings: ["utf-8", "utf-32", "utf-16"] } } : {}),
  };
}

export const CLIENT_INFO: Record<EditorStyle, { name: string; version: string }> = {
  helix: { name: "helix", version: "25.07" },
  neovim: { name: "Neovim", version: "0.7.2" },
  eglot: { name: "Eglot", version: "1.9" },
  "no-apply-edit": { name: "plain", version: "0" },
};
