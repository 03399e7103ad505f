// What the session/load replay tests share: temporary folders removed after each test (with the
// scripted editors closed first), and an `edit` call on the file's state as the model was given it.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import { closeAll } from "./scripted-editor.js";

const dirs: string[] = [];

/** Registers the clean-up for the calling test file. */
export function cleanUpAfterEach(): void {
  afterEach(async () => {
    await closeAll();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
}

export const tempDir = (prefix: string): string => {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
};

export const edit = (file: string, from: string, to: string) => ({
  name: "edit",
  args: { file_path: file, old_string: from, new_string: to, base_content_sha256: `{{sha256:${file}}}` },
});
