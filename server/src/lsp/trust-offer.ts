// Folder trust in an editor: `lockstep.trust` (the user's command; no tool the model
// calls reaches it), and once after start, where the client can show a choice and the
// project file set keys that wait for trust, the offer "Trust this folder".
import { MessageType } from "vscode-languageserver";
import { waitingForTrust } from "../config/project-keys.js";
import { addTrust } from "../config/trust.js";
import { errorEnvelope, okEnvelope, type Envelope } from "../tools/envelope.js";
import type { ServerContext } from "./server-context.js";

const TRUST = "Trust this folder";
const NOT_NOW = "Not now";

/** The command: trusts the first root's folder, reads its project file again in full. */
export function trustFolder(ctx: ServerContext): Envelope {
  const trust = ctx.settings.trust;
  if (!trust) return errorEnvelope("internal_error", "Internal Error: the server was not initialized.");
  const waiting = waitingForTrust(trust.ignored);
  let recorded: { folder: string; added: boolean };
  try {
    recorded = addTrust(trust.folder);
  } catch (error) {
    return errorEnvelope(
      "io_error",
      `I/O error: the trust list could not be written (${error instanceof Error ? error.message : String(error)}). Nothing changed.`,
      [
        "Check that lockstep's state directory ($XDG_STATE_HOME/lockstep, else ~/.local/state/lockstep) is writable.",
      ],
    );
  }
  ctx.settings.reloadProject();
  const userOnly = (ctx.settings.trust?.ignored ?? []).map((i) => i.key);
  const message = `${recorded.folder} is trusted${recorded.added ? "" : " (it already was)"}: its ${trust.file} applies in full${waiting.length > 0 ? ` (${waiting.join(", ")} now apply)` : ""}.${userOnly.length > 0 ? ` ${userOnly.join(", ")} still come only from your own settings.` : ""}`;
  ctx.notify(MessageType.Info, `lockstep: ${message}`);
  return okEnvelope({ folder: recorded.folder, trusted: true, applied: waiting, message });
}

/** Once, after initialized: the choice where the client shows one; the command is named in the warning otherwise. */
export async function offerTrust(ctx: ServerContext): Promise<void> {
  const trust = ctx.settings.trust;
  if (!trust || trust.trusted || !ctx.state.flags.messageActions || ctx.state.clientName === "lockstep")
    return;
  const waiting = waitingForTrust(trust.ignored);
  if (waiting.length === 0) return;
  const answer = await ctx.connection.window
    .showInformationMessage(
      `lockstep: ${trust.file} sets ${waiting.join(", ")}, ignored until you trust ${trust.folder}. Trust this folder?`,
      { title: TRUST },
      { title: NOT_NOW },
    )
    .catch(() => undefined);
  if (answer?.title === TRUST) trustFolder(ctx);
}
