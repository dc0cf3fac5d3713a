// Client catalogs seen by this isolate, by content: a client sends the same tools on every turn, and a turn whose
// catalog hashes like an earlier one's gets that turn's definition objects back, so that what is kept with a
// definition (its token counts, core/tools/toolTokens.ts) is found again instead of recomputed. Bounded by count and by
// the catalogs' JSON size; the least recently used catalog goes first.
import { sha256Hex } from "../core/digest.ts";
import type { ToolDefinition } from "../core/types.ts";
import type { ClientCatalog } from "../durable/sessionObject.ts";

const MAX_CATALOGS = 32;
/** About 10 MB of heap for the parsed definitions: a small share of an isolate's 128 MB. */
const MAX_TOTAL_CHARS = 4_000_000;

const catalogs = new Map<string, { tools: ToolDefinition[]; chars: number }>();
let totalChars = 0;

/** The catalog's content hash (what the session object stores it under) and its definitions, shared across turns. */
export async function internCatalog(tools: ToolDefinition[]): Promise<ClientCatalog> {
  // Frozen, so that what the core keeps per tools array (core/turn/prepare.ts, toolTokens.ts) may be kept for it.
  Object.freeze(tools);
  const text = JSON.stringify(tools);
  const hash = await sha256Hex(text);
  const known = catalogs.get(hash);
  if (known) {
    // Re-inserted: the map's order stays least recently used first.
    catalogs.delete(hash);
    catalogs.set(hash, known);
    return { hash, tools: known.tools };
  }
  if (text.length <= MAX_TOTAL_CHARS) {
    catalogs.set(hash, { tools, chars: text.length });
    totalChars += text.length;
    for (const [oldest, entry] of catalogs) {
      if (catalogs.size <= MAX_CATALOGS && totalChars <= MAX_TOTAL_CHARS) break;
      catalogs.delete(oldest);
      totalChars -= entry.chars;
    }
  }
  return { hash, tools };
}
