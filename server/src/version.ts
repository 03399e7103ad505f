// Kept equal to package.json's version by test/version.test.ts (reading package.json at start-up costs time).
export const VERSION = "0.1.0";
