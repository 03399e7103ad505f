// lockstep's own tools on disk, through the one registry and the one modifying
// path (tools/modify.ts) the CLI uses: safe_patch and edit with the sha256 of the
// text the agent read, and edit without it (the unlocked use the schema allows).
// Typing during the approval is written to the file from inside the approval prompt.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createHash } from "node:crypto";
import { invokeTool } from "../../server/src/tools/registry.js";
import type { ToolContext } from "../../server/src/tools/tool.js";
import { Sandbox } from "../../server/src/workspace/sandbox.js";
import { Workspace } from "../../server/src/workspace/workspace.js";
import type { Attempt } from "./classify.js";
import type { AgentEdit } from "./formats.js";

export const LOCKSTEP_TOOLS = ["lockstep safe_patch", "lockstep edit", "lockstep edit, no base"] as const;
export type LockstepTool = (typeof LOCKSTEP_TOOLS)[number];

export interface LockstepCall {
  path: string;
  edit: AgentEdit;
  atCall: string;
  /** What the user's typing during the approval leaves in the file. */
  afterApproval?: string;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export class LockstepOnDisk {
  private readonly root = realpathSync(mkdtempSync(join(tmpdir(), "lockstep-bench-moving-")));
  private next = 0;
  private sandbox: Sandbox | undefined;

  async run(tool: LockstepTool, call: LockstepCall): Promise<Attempt> {
    this.sandbox ??= await Sandbox.create([this.root]);
    const dir = `c${this.next++}`;
    const rel = `${dir}/${call.path}`;
    const abs = join(this.root, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, call.atCall);
    const ctx: ToolContext = {
      workspace: new Workspace(this.sandbox),
      signal: new AbortController().signal,
      approve: async () => {
        if (call.afterApproval !== undefined) writeFileSync(abs, call.afterApproval);
        return "apply";
      },
    };
    const base = sha256(call.edit.base);
    const args =
      tool === "lockstep safe_patch"
        ? {
            file_path: rel,
            unified_diff: call.edit.unifiedDiff
              .replaceAll(`a/${call.path}`, `a/${rel}`)
              .replaceAll(`b/${call.path}`, `b/${rel}`),
            base_content_sha256: base,
          }
        : {
            file_path: rel,
            old_string: call.edit.oldString,
            new_string: call.edit.newString,
            ...(tool === "lockstep edit" ? { base_content_sha256: base } : {}),
          };
    const result = await invokeTool(tool === "lockstep safe_patch" ? "safe_patch" : "edit", args, ctx);
    const written = readFileSync(abs, "utf8");
    rmSync(join(this.root, dir), { recursive: true, force: true });
    const user = call.afterApproval ?? call.atCall;
    if (result.ok || written !== user) return { kind: "applied", content: written };
    return { kind: "refused", why: result.error.code };
  }

  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}
