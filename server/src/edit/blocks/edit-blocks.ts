// Edit blocks: the path + ««« EDIT / ═══════ REPL / »»» EDIT END format a model
// writes in prose. Parsing (whole or streamed) and applying one block to a
// file's text; pure, no fs. The caller decides file existence, context
// membership and the order blocks are applied in.
export {
  EditBlockParser,
  parseEditBlocks,
  countEditBlocks,
  isCreateBlock,
  pathFromLine,
  EDIT_MARKER,
  REPL_MARKER,
  END_MARKER,
  type EditBlock,
  type ParseSummary,
} from "./edit-block-parser.js";
export { applyEditBlock, type BlockApplied } from "./edit-block-apply.js";
