// A tool's embedding: the text a provider embeds for it, the digest its stored vector is kept under (so that a changed
// definition, or another model, is embedded again and an unchanged one never is), and the compact form vectors are
// kept and compared in (unit length, one signed byte per dimension: a quarter of float32's bytes, and cosine
// similarity stays within about 1% for the few hundred to few thousand dimensions embedding models have).
import { isRecord } from "../records.ts";
import type { ToolDefinition } from "../types.ts";
import { nameKey } from "./exactNames.ts";

/** Longest text embedded per tool, in characters (providers cut far longer inputs anyway; this bounds the bytes sent). */
export const MAX_EMBEDDED_CHARS = 2_000;
/** Parameters named in a tool's embedded text. */
const MAX_PARAMETERS = 20;

/** What a provider embeds for a tool: its name's words, its description, its top-level parameters and theirs. */
export function embeddingText(tool: ToolDefinition): string {
  const parts = [nameKey(tool.name.slice(0, 64)) || tool.name, tool.description];
  const properties = isRecord(tool.parameters) ? tool.parameters.properties : undefined;
  if (isRecord(properties)) {
    for (const [name, schema] of Object.entries(properties).slice(0, MAX_PARAMETERS)) {
      const description = isRecord(schema) && typeof schema.description === "string" ? `: ${schema.description}` : "";
      parts.push(`${name}${description}`);
    }
  }
  const text = parts.filter((part) => part !== "").join("\n");
  return text.length > MAX_EMBEDDED_CHARS ? text.slice(0, MAX_EMBEDDED_CHARS) : text;
}

/** FNV-1a over UTF-16 code units from `seed`, as an unsigned 32-bit number. */
function fnv1a(text: string, seed: number): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * The key of a tool's vector: the provider's id and the embedded text, hashed (64 bits; a collision costs one stale
 * vector for one tool, never a wrong tool). Synchronous and cheap: every tool of a new registry version is keyed.
 */
export function vectorDigest(providerId: string, text: string): string {
  const whole = `${providerId}\u0000${text}`;
  return fnv1a(whole, 0x811c9dc5).toString(16).padStart(8, "0") + fnv1a(whole, 0x01000193 ^ whole.length).toString(16).padStart(8, "0");
}

/** The scale of a packed vector's bytes: a unit vector's components times this, rounded. */
const BYTE_SCALE = 127;

/** `vector` scaled to unit length and packed one byte per dimension; undefined for no vector (empty, zero or not finite). */
export function packVector(vector: ArrayLike<number>): Int8Array | undefined {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) {
    const value = vector[i] ?? Number.NaN;
    if (!Number.isFinite(value)) return undefined;
    norm += value * value;
  }
  if (vector.length === 0 || norm === 0) return undefined;
  const scale = BYTE_SCALE / Math.sqrt(norm);
  const packed = new Int8Array(vector.length);
  for (let i = 0; i < vector.length; i++) packed[i] = Math.round((vector[i] ?? 0) * scale);
  return packed;
}

/** The cosine similarity of two packed vectors (-1 to 1); 0 when their dimensions differ (another model's). */
export function similarity(a: Int8Array, b: Int8Array): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}
