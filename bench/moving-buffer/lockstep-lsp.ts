// lockstep through its real server (bin/lockstep.js --stdio), with an editor that
// types: the buffer is opened at the version the agent read, the user's typing
// arrives as versioned didChanges, and the typing "during the approval" happens
// when the server's workspace/applyEdit reaches the editor, before the editor
// checks the edit's version (as Neovim and Helix do; a stale version is refused).
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { MinimalClient } from "../minimal-client.js";
import type { Attempt } from "./classify.js";
import type { LockstepCall } from "./lockstep-tools.js";

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

interface Envelope {
  ok: boolean;
  error?: { code: string };
}

export class LockstepOverLsp {
  private next = 0;

  private constructor(
    private readonly root: string,
    private readonly client: MinimalClient,
  ) {}

  static async start(entry: string): Promise<LockstepOverLsp> {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "lockstep-bench-moving-lsp-")));
    return new LockstepOverLsp(root, await MinimalClient.start(entry, root));
  }

  async run(tool: "safe_patch" | "edit", call: LockstepCall): Promise<Attempt> {
    const rel = `l${this.next++}/${call.path}`;
    const abs = join(this.root, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, call.edit.base);
    // The agent read version 1; everything after it is the user's.
    this.client.open(rel, call.edit.base);
    this.client.type(call.atCall);
    const late = call.afterApproval;
    let typedLate = false;
    this.client.beforeApplyEdit =
      late === undefined
        ? undefined
        : () => {
            if (!typedLate) this.client.type(late);
            typedLate = true;
          };
    const base = sha256(call.edit.base);
    const diff = call.edit.unifiedDiff
      .replaceAll(`a/${call.path}`, `a/${rel}`)
      .replaceAll(`b/${call.path}`, `b/${rel}`);
    const args =
      tool === "safe_patch"
        ? { file_path: rel, unified_diff: diff, base_content_sha256: base }
        : {
            file_path: rel,
            old_string: call.edit.oldString,
            new_string: call.edit.newString,
            base_content_sha256: base,
          };
    let result: Envelope;
    try {
      result = (await this.client.request("workspace/executeCommand", {
        command: `lockstep.${tool}`,
        arguments: [args],
      })) as Envelope;
    } finally {
      this.client.beforeApplyEdit = undefined;
    }
    // Typing due during the approval happens even when no edit came to trigger it.
    if (late !== undefined && !typedLate) this.client.type(late);
    const written = this.client.text;
    const user = late ?? call.atCall;
    if (result.ok || written !== user) return { kind: "applied", content: written };
    return { kind: "refused", why: result.error?.code ?? "refused" };
  }

  async dispose(): Promise<void> {
    await this.client.close();
    rmSync(this.root, { recursive: true, force: true });
  }
}
