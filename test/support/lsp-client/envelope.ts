// What a test reads back from a lockstep command: the envelope, the file state
// inside it, and sha256 to compare a state's hash with a text or the disk.
import { createHash } from "node:crypto";
// The server's own types: the envelope and the state are the contract between it and every client.
import type { Data, Envelope } from "../../../server/src/tools/envelope.js";
import type { FileState } from "../../../server/src/workspace/file-state.js";

export type { Data, Envelope, FileState };

/** `data.latest_file_state` (or the data itself for read_file); throws naming what came instead. */
export function stateOf(envelope: Envelope): FileState {
  const data = envelope.data;
  const state = data && "latest_file_state" in data ? data["latest_file_state"] : data;
  if (typeof state !== "object" || state === null || !("sha256" in state))
    throw new Error(`no file state in ${JSON.stringify(envelope)}`);
  return state as FileState;
}

export function sha256(text: string | Uint8Array): string {
  return createHash("sha256").update(text).digest("hex");
}
