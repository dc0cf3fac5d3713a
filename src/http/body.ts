// Reading a JSON request body under a byte limit (checked by Content-Length first, then while reading) and a
// nesting limit.
import { pathDeeperThan } from "../core/jsonSchema/depth.ts";
import { childField } from "../core/jsonSchema/field.ts";
import { isRecord } from "../core/records.ts";
import { HttpError } from "./errors.ts";

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, "payload_too_large", `request body is larger than ${maxBytes} bytes`);
}

/** The body's bytes, never more than `maxBytes` read (a longer stream is cancelled). */
export async function readBodyBytes(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    if (!/^\d+$/.test(declared.trim())) throw new HttpError(400, "invalid_request", "Content-Length is not a number");
    if (Number(declared) > maxBytes) throw tooLarge(maxBytes);
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * How deeply a request body may nest (the body object is level 1). Tool parameters nest up to 32 subschemas, two
 * JSON levels each, under a few levels of request; nothing legitimate comes near. A deeper body is refused before
 * anything walks it recursively (structured clone to a Durable Object overflowed its stack on 2,500 levels).
 */
export const MAX_BODY_DEPTH = 128;
const SHOWN_PATH_SEGMENTS = 4;

/** The body parsed as JSON; it must be an object. 400 `invalid_json` / `too_deep` otherwise, 413 over the limit. */
/** `emptyIsObject`: a route whose every field is optional reads no body at all as `{}`. */
export async function readJsonObject(request: Request, maxBytes: number, options: { emptyIsObject?: boolean } = {}): Promise<Record<string, unknown>> {
  const bytes = await readBodyBytes(request, maxBytes);
  if (bytes.byteLength === 0) {
    if (options.emptyIsObject === true) return {};
    throw new HttpError(400, "invalid_json", "the request body must be a JSON object");
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new HttpError(400, "invalid_json", "the request body is not valid UTF-8");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : "parse error";
    throw new HttpError(400, "invalid_json", `the request body is not valid JSON (${reason})`);
  }
  if (!isRecord(parsed)) throw new HttpError(400, "invalid_json", "the request body must be a JSON object");
  refuseTooDeep(parsed);
  return parsed;
}

/**
 * 400 `too_deep` when `value`, found at `field` of a body (at nesting level `level`, the body being 1), reaches
 * deeper than MAX_BODY_DEPTH: the one limit of every JSON a request carries, whether it came as the body (HTTP API,
 * /mcp) or as JSON text inside one (execute's `arguments` string).
 */
export function refuseTooDeep(value: unknown, field = "", level = 1): void {
  const deep = pathDeeperThan(value, MAX_BODY_DEPTH - level + 1);
  if (deep === undefined) return;
  // As many segments as the same value would show as part of the body.
  const shown = deep.slice(0, Math.max(1, SHOWN_PATH_SEGMENTS - level + 1)).reduce<string>((at, key) => childField(at, key), field);
  throw new HttpError(400, "too_deep", `${shown}…: nests more than ${MAX_BODY_DEPTH} levels deep`);
}
