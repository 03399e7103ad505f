// Injected into the CommonJS bundle by scripts/bundle.mjs, which defines
// `import.meta.url` as this: the URL of the bundle file itself.
/* global __filename */
import { pathToFileURL } from "node:url";

export const importMetaUrl = pathToFileURL(__filename).href;
