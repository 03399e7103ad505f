// Argument fields several tools share. Each schema is at once the TypeScript
// type, the runtime check of every incoming argument and what the model is shown.
import * as z from "zod";

export const filePath = z
  .string()
  .trim()
  .min(1, "must name a file")
  .describe(
    "Workspace-relative path of the file (absolute paths and file:// URIs inside the workspace also work).",
  );

export const sha256Hex = z
  .string()
  .trim()
  .regex(/^[0-9a-fA-F]{64}$/, "must be the 64-character hex sha256 returned with the file state")
  .transform((s) => s.toLowerCase());

export const baseSha256 = sha256Hex.describe(
  "The sha256 of the file version this change was built on, exactly as returned by the latest read or write. It is the lock: if the file changed since, nothing is applied and the current state is returned.",
);

export const dryRun = z
  .boolean()
  .optional()
  .describe("Check the change and report what would happen without writing anything.");
