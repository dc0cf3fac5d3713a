// Pinned descriptions (the rug-pull defence): an upstream tool's definition is pinned by hash when it is first
// imported; a later list that changes it puts the tool in quarantine (not registered: neither searchable nor
// executable) until the owner accepts exactly what the quarantine shows. Tools that a known upstream adds later follow
// its `newTools` policy. Pure decisions; the upstream's Durable Object stores the result.
import { sha256Hex } from "../digest.ts";
import { canonicalJson } from "../jsonSchema/canonical.ts";
import type { McpTool } from "./mcpTool.ts";

export type NewToolsPolicy = "accept" | "quarantine";
export const NEW_TOOLS_POLICIES: readonly NewToolsPolicy[] = ["accept", "quarantine"];

export interface Pin {
  hash: string;
  /** The tool as it was approved, for the diff a later change shows. */
  tool: McpTool;
  /** Epoch milliseconds. */
  pinnedAt: number;
}

/** One field that differs from the pinned tool, each side as text (JSON for schemas), cut at DIFF_TEXT_MAX. */
export interface FieldChange {
  field: "title" | "description" | "inputSchema" | "annotations";
  before: string | null;
  after: string | null;
}

export interface QuarantinedTool {
  name: string;
  /** `changed`: differs from its pin; `new`: a tool the upstream added after its first import. */
  reason: "changed" | "new";
  hash: string;
  /** What accepting it would pin and register. */
  tool: McpTool;
  diff: FieldChange[];
  /** Epoch milliseconds: when this version was first held. */
  since: number;
}

export interface ImportPlan {
  /** Tools to register: pinned and unchanged, or pinned now. */
  accepted: McpTool[];
  quarantined: QuarantinedTool[];
  pins: Record<string, Pin>;
}

/** Deepest nesting hashed; definitions are validated to 32 levels of schema, so this is never reached by a real one. */
export const HASH_DEPTH = 256;
const DIFF_TEXT_MAX = 2_000;
/** Pins of tools an upstream no longer lists are kept (a tool that comes back changed is held), up to this many. */
export const MAX_UNLISTED_PINS = 500;

/** SHA-256 of the tool's canonical JSON: what the model reads (name, title, description, schema) and the hints. */
export function toolHash(tool: McpTool): Promise<string> {
  return sha256Hex(canonicalJson(tool, HASH_DEPTH));
}

function fieldText(value: unknown): string | null {
  if (value === undefined) return null;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > DIFF_TEXT_MAX ? `${text.slice(0, DIFF_TEXT_MAX)}…` : text;
}

/** The fields of `after` that differ from `before` (every present field when there is no `before`). */
export function toolDiff(before: McpTool | undefined, after: McpTool): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of ["title", "description", "inputSchema", "annotations"] as const) {
    const old = before?.[field];
    const now = after[field];
    if (canonicalJson(old, HASH_DEPTH) !== canonicalJson(now, HASH_DEPTH)) {
      changes.push({ field, before: fieldText(old), after: fieldText(now) });
    }
  }
  return changes;
}

export interface ImportInput {
  listed: readonly McpTool[];
  pins: Readonly<Record<string, Pin>>;
  /** The quarantine before this list: a tool held in the same version keeps its `since`. */
  quarantine: Readonly<Record<string, QuarantinedTool>>;
  policy: NewToolsPolicy;
  /** The upstream's first successful list: everything it lists is pinned (the owner just added it). */
  firstImport: boolean;
  now: number;
}

/** What a new list means: which tools register, which are held, the pins afterwards. */
export async function planImport(input: ImportInput): Promise<ImportPlan> {
  const { listed, policy, firstImport, now } = input;
  const pins: Record<string, Pin> = {};
  const accepted: McpTool[] = [];
  const quarantined: QuarantinedTool[] = [];
  for (const tool of listed) {
    const hash = await toolHash(tool);
    const pin = Object.hasOwn(input.pins, tool.name) ? input.pins[tool.name] : undefined;
    if (pin?.hash === hash || (pin === undefined && (firstImport || policy === "accept"))) {
      pins[tool.name] = pin ?? { hash, tool, pinnedAt: now };
      accepted.push(tool);
      continue;
    }
    if (pin !== undefined) pins[tool.name] = pin;
    const held = Object.hasOwn(input.quarantine, tool.name) ? input.quarantine[tool.name] : undefined;
    quarantined.push({
      name: tool.name,
      reason: pin === undefined ? "new" : "changed",
      hash,
      tool,
      diff: toolDiff(pin?.tool, tool),
      since: held?.hash === hash ? held.since : now,
    });
  }
  // Pins of tools not listed now, newest first, up to the cap.
  const unlisted = Object.entries(input.pins)
    .filter(([name]) => !Object.hasOwn(pins, name))
    .toSorted(([, a], [, b]) => b.pinnedAt - a.pinnedAt)
    .slice(0, MAX_UNLISTED_PINS);
  for (const [name, pin] of unlisted) pins[name] = pin;
  return { accepted, quarantined, pins };
}

/** One tool the owner accepts: its upstream name and the digest of the definition the owner was shown. */
export interface AcceptChoice {
  name: string;
  digest: string;
}

export type AcceptOutcome =
  | { ok: true; pins: Record<string, Pin>; quarantine: Record<string, QuarantinedTool>; accepted: McpTool[] }
  /** `unknown`: names not in quarantine; `changed`: held now in another version than the digest names. */
  | { ok: false; unknown: string[]; changed: { name: string; digest: string }[] };

/**
 * Pins exactly what the owner was shown: each chosen tool only while the quarantine still holds the version with the
 * given digest (an upstream may list a new version between the owner's look and the accept). All or nothing.
 */
export function acceptQuarantined(
  pins: Readonly<Record<string, Pin>>,
  quarantine: Readonly<Record<string, QuarantinedTool>>,
  choices: readonly AcceptChoice[],
  now: number,
): AcceptOutcome {
  const unknown: string[] = [];
  const changed: { name: string; digest: string }[] = [];
  const nextPins = { ...pins };
  const nextQuarantine = { ...quarantine };
  const accepted: McpTool[] = [];
  for (const { name, digest } of choices) {
    const held = Object.hasOwn(quarantine, name) ? quarantine[name] : undefined;
    if (held === undefined) unknown.push(name);
    else if (held.hash !== digest) changed.push({ name, digest: held.hash });
    else if (Object.hasOwn(nextQuarantine, name)) {
      nextPins[name] = { hash: held.hash, tool: held.tool, pinnedAt: now };
      delete nextQuarantine[name];
      accepted.push(held.tool);
    }
  }
  if (unknown.length > 0 || changed.length > 0) return { ok: false, unknown, changed };
  return { ok: true, pins: nextPins, quarantine: nextQuarantine, accepted };
}
