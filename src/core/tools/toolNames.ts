// Tool names every provider accepts. OpenAI takes `^[a-zA-Z0-9_-]{1,64}$`; MCP names may be longer and carry `.`, `/`
// or any letter. A name that does not fit is made to fit deterministically: a readable head (the name with each run of
// other characters turned into one `_`) and a hash of the whole original name, so two different names never meet.

/** What every provider accepts as a function name (OpenAI's rule, the strictest). */
export const PORTABLE_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX_NAME_LENGTH = 64;
const HASH_LENGTH = 10;
/** The head leaves room for `_` and the hash. */
const HEAD_LENGTH = MAX_NAME_LENGTH - 1 - HASH_LENGTH;
const OTHER_CHARACTERS = /[^a-zA-Z0-9_-]+/g;
/** A name with no readable character left (e.g. all Chinese) still says what it is. */
const EMPTY_HEAD = "tool";

/** 64-bit FNV-1a over UTF-16 code units, as 10 base-36 digits (~51 bits): stable across runtimes and synchronous. */
function nameHash(text: string): string {
  let hash = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  const mask = 0xffffffffffffffffn;
  for (let index = 0; index < text.length; index++) {
    hash ^= BigInt(text.charCodeAt(index));
    hash = (hash * prime) & mask;
  }
  return (hash % 36n ** BigInt(HASH_LENGTH)).toString(36).padStart(HASH_LENGTH, "0");
}

/** True when the name needs no fitting. */
export function isPortableToolName(name: string): boolean {
  return PORTABLE_TOOL_NAME.test(name);
}

/**
 * The portable name for `name`: the name itself when it already fits, else `<head>_<hash>` (at most 64 characters).
 * Deterministic: the same name always fits to the same result, on every isolate and after every restart.
 */
export function fitToolName(name: string): string {
  if (isPortableToolName(name)) return name;
  const readable = name.replace(OTHER_CHARACTERS, "_").replace(/^_+|_+$/g, "");
  const head = (readable.length > 0 ? readable : EMPTY_HEAD).slice(0, HEAD_LENGTH).replace(/_+$/, "");
  return `${head.length > 0 ? head : EMPTY_HEAD}_${nameHash(name)}`;
}

/** `<prefix>__<tool>`, fitted: how an upstream server's tool is named in the catalog (servers never collide). */
export function prefixedToolName(prefix: string, toolName: string): string {
  return fitToolName(`${prefix}__${toolName}`);
}
