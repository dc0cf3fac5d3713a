// Evidence that a query's words describe a tool (docs/search.md, "Learning from calls"): a search showed the tool,
// then the model called it and the guard let the call run. Only analyzed terms are kept (never the query's text), per
// (tool, term, principal), each principal's weight capped and decaying with a half-life. Folding the evidence keeps,
// per tool, the terms that at least `minPrincipals` distinct principals taught, heaviest first.
import { isRecord } from "../records.ts";
import { analyze } from "../search/analyze.ts";

export interface LearningOptions {
  /** Distinct principals a term needs before it counts for a tool. */
  minPrincipals: number;
  /** Evidence halves in weight every this many days. */
  halfLifeDays: number;
  /** Most learned terms kept per tool. */
  maxTermsPerTool: number;
}

/** One principal's weight is capped at one call's worth: repeating a call never outweighs another principal. */
export const PRINCIPAL_WEIGHT_CAP = 1;
/** Evidence decayed below this weight no longer counts and is dropped when the evidence is folded. */
export const MIN_EVIDENCE_WEIGHT = 0.05;
/** Most distinct terms one call's query teaches (the first ones): a long message does not flood the evidence. */
export const MAX_TERMS_PER_EVENT = 16;
/** Terms longer than this are not kept (no word is; a made-up string of 2,000 characters is not evidence). */
export const MAX_TERM_LENGTH = 40;
/** A search's id is a UUID; anything longer is not one. */
export const MAX_SEARCH_ID_LENGTH = 64;
/** Tool names are catalog names (`^[a-zA-Z0-9_-]{1,64}$`). */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const DAY_MS = 86_400_000;
/** A term of digits alone (a date, an amount, an identifier): it says which request, not which tool, and is not kept. */
const NUMBER = /^\p{N}+$/u;

/**
 * One call's evidence: the terms of the search that showed `tool`, from `principal`, at `at` (ms); `search` is that
 * search's id (absent: the event is a search of its own), by which the evidence of one search is split among the
 * tools called from it (searchShares).
 */
export interface EvidenceEvent {
  tool: string;
  terms: string[];
  principal: string;
  at: number;
  search?: string;
  /**
   * The tools the search showed above `tool` (nearest last, at most MAX_SHOWN_ABOVE): those not called from the same
   * search were passed over for its words (passedOver).
   */
  above?: string[];
}

/** How much of a call's share each tool shown above the called one and not called learns against the search's terms. */
export const PASSED_OVER_SHARE = 0.5;
/** Most tools shown above a called one that its event names (a page shows five; the nearest are kept). */
export const MAX_SHOWN_ABOVE = 4;

/**
 * What is kept per (tool, term, principal): a weight as of `at`. `passedOver`: the evidence that the tool was shown
 * above a tool the principal called from the same search and was not called itself (its words were not the tool's).
 */
export interface EvidenceRow {
  tool: string;
  term: string;
  principal: string;
  weight: number;
  at: number;
  passedOver?: boolean;
}

/** A learned term of a tool: its weight (the sum of its principals' decayed weights) and how many principals taught it. */
export interface LearnedTerm {
  term: string;
  weight: number;
  principals: number;
}

/**
 * What a tool's callers asked for, as a whole: each principal's terms for the tool, each principal weighing 1/n of it
 * (its weight spread over its terms), heaviest first. Made only for a tool that `minPrincipals` distinct principals
 * called: the ranking reads it as one vector (overlay.ts), which finds the tool for words no caller used.
 */
export interface CallerProfile {
  principals: number;
  terms: { term: string; weight: number }[];
}

/** The folded evidence: per tool, its learned terms, heaviest first; `version` moves with every fold. */
export interface LearnedState {
  version: number;
  appliedAt: number;
  tools: Record<string, LearnedTerm[]>;
  /** Per tool that minPrincipals principals called, its callers' profile (absent in a state folded before profiles). */
  profiles?: Record<string, CallerProfile>;
  /**
   * Per tool, the terms for which at least minPrincipals principals passed it over (shown above a tool they called
   * from the same search), heaviest first (absent in a state folded before them).
   */
  passedOver?: Record<string, LearnedTerm[]>;
}

export const EMPTY_LEARNED_STATE: LearnedState = Object.freeze({ version: 0, appliedAt: 0, tools: Object.freeze({}) });

/**
 * The terms a query teaches: analyzed as the ranked index analyzes text (so they match its terms and never keep the
 * query's own words), each once, at most MAX_TERMS_PER_EVENT; words written as names or identifiers teach nothing
 * (withoutNamesOrIdentifiers), nor does a term of digits alone.
 */
export function evidenceTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const term of analyze(withoutNamesOrIdentifiers(query))) {
    if (term.length > MAX_TERM_LENGTH || NUMBER.test(term)) continue;
    terms.add(term);
    if (terms.size >= MAX_TERMS_PER_EVENT) break;
  }
  return [...terms];
}

/** Whether a value read from outside (an RPC, storage) is an event this module can keep. */
export function isEvidenceEvent(value: unknown): value is EvidenceEvent {
  if (!isRecord(value)) return false;
  const { tool, terms, principal, at } = value;
  const { search, above } = value;
  return typeof tool === "string" && TOOL_NAME.test(tool) && typeof principal === "string" && principal.length > 0 &&
    (above === undefined || (Array.isArray(above) && above.length <= MAX_SHOWN_ABOVE && above.every((name) => typeof name === "string" && TOOL_NAME.test(name)))) &&
    (search === undefined || (typeof search === "string" && search.length > 0 && search.length <= MAX_SEARCH_ID_LENGTH)) &&
    typeof at === "number" && Number.isFinite(at) && Array.isArray(terms) && terms.length <= MAX_TERMS_PER_EVENT &&
    terms.every((term) => typeof term === "string" && term.length > 0 && term.length <= MAX_TERM_LENGTH);
}

/**
 * One search's evidence weighs one call, split among the tools called from it: a request that asked for three tools
 * says each of its words describes one of them, not all three. Each event's share is 1 / k, k the distinct tools of
 * its (principal, search) among `events` plus `calledBefore` of that search (tools whose share was given earlier);
 * an event without a search id is a search of its own (share 1). A tool called twice from one search counts once
 * (the first event; the others get share 0).
 */
export function searchShares<E extends EvidenceEvent>(events: readonly E[], calledBefore: (principal: string, search: string) => number = () => 0): { event: E; share: number }[] {
  const tools = new Map<string, Set<string>>();
  const key = (event: EvidenceEvent): string | undefined => event.search === undefined ? undefined : JSON.stringify([event.principal, event.search]);
  for (const event of events) {
    const group = key(event);
    if (group === undefined) continue;
    let called = tools.get(group);
    if (!called) tools.set(group, (called = new Set()));
    called.add(event.tool);
  }
  const given = new Set<string>();
  return events.map((event) => {
    const group = key(event);
    if (group === undefined || event.search === undefined) return { event, share: 1 };
    const once = JSON.stringify([group, event.tool]);
    if (given.has(once)) return { event, share: 0 };
    given.add(once);
    return { event, share: 1 / ((tools.get(group)?.size ?? 1) + calledBefore(event.principal, event.search)) };
  });
}

/**
 * The tools passed over by the calls of `shares` (searchShares' answer): each tool an event's search showed above the
 * called one that no event of the same (principal, search) called, with that event's terms and share (a tool above
 * two called tools is passed over for each). An event without a search id is its own search.
 */
export function passedOver(shares: readonly { event: EvidenceEvent; share: number }[]): { tool: string; terms: string[]; principal: string; at: number; share: number }[] {
  const group = (event: EvidenceEvent): string => JSON.stringify([event.principal, event.search ?? null, event.search === undefined ? event.tool : null]);
  const called = new Map<string, Set<string>>();
  for (const { event } of shares) {
    const key = group(event);
    let tools = called.get(key);
    if (!tools) called.set(key, (tools = new Set()));
    tools.add(event.tool);
  }
  const skipped: { tool: string; terms: string[]; principal: string; at: number; share: number }[] = [];
  for (const { event, share } of shares) {
    if (share <= 0 || event.above === undefined) continue;
    const tools = called.get(group(event));
    for (const tool of new Set(event.above)) {
      if (tools?.has(tool) !== true) skipped.push({ tool, terms: event.terms, principal: event.principal, at: event.at, share });
    }
  }
  return skipped;
}

/** `weight` as of `at`, decayed to `now` by the half-life (never grown: a clock that went back leaves it). */
export function decayed(weight: number, at: number, now: number, halfLifeDays: number): number {
  const elapsed = Math.max(0, now - at);
  return weight * 2 ** (-elapsed / (halfLifeDays * DAY_MS));
}

/** The row after one more call of its (tool, term, principal) at `now`: decayed, plus one, capped. */
export function reinforced(row: EvidenceRow | undefined, key: Omit<EvidenceRow, "weight" | "at">, now: number, halfLifeDays: number, share = 1): EvidenceRow {
  const before = row === undefined ? 0 : decayed(row.weight, row.at, now, halfLifeDays);
  return { ...key, weight: Math.min(PRINCIPAL_WEIGHT_CAP, before + share), at: Math.max(now, row?.at ?? now) };
}

/**
 * Folds the rows as of `now`: each (tool, term) sums its principals' decayed weights (each capped), counts only with
 * `minPrincipals` distinct principals whose weight still counts, and each tool keeps its `maxTermsPerTool` heaviest
 * terms (ties by term, so that a fold is deterministic).
 */
export function foldEvidence(rows: Iterable<EvidenceRow>, now: number, options: LearningOptions, version: number): LearnedState {
  const byTool = new Map<string, Map<string, { weight: number; principals: number }>>();
  const passedOverByTool = new Map<string, Map<string, { weight: number; principals: number }>>();
  /** tool → principal → its terms and their weights (for the callers' profiles). */
  const callers = new Map<string, Map<string, Map<string, number>>>();
  for (const row of rows) {
    const weight = Math.min(PRINCIPAL_WEIGHT_CAP, decayed(row.weight, row.at, now, options.halfLifeDays));
    if (weight < MIN_EVIDENCE_WEIGHT) continue;
    if (row.passedOver === true) {
      addTermWeight(passedOverByTool, row.tool, row.term, weight);
      continue;
    }
    let principals = callers.get(row.tool);
    if (!principals) callers.set(row.tool, (principals = new Map()));
    let own = principals.get(row.principal);
    if (!own) principals.set(row.principal, (own = new Map()));
    own.set(row.term, weight);
    addTermWeight(byTool, row.tool, row.term, weight);
  }
  const state: LearnedState = { version, appliedAt: now, tools: countedTerms(byTool, options), profiles: callerProfiles(callers, options) };
  const passed = countedTerms(passedOverByTool, options);
  return Object.keys(passed).length === 0 ? state : { ...state, passedOver: passed };
}

/** Adds one principal's `weight` to (tool, term) of `byTool`. */
function addTermWeight(byTool: Map<string, Map<string, { weight: number; principals: number }>>, tool: string, term: string, weight: number): void {
  let terms = byTool.get(tool);
  if (!terms) byTool.set(tool, (terms = new Map()));
  const sum = terms.get(term);
  if (sum) {
    sum.weight += weight;
    sum.principals += 1;
  } else terms.set(term, { weight, principals: 1 });
}

/** Per tool, its terms that minPrincipals principals taught, heaviest first, at most maxTermsPerTool. */
function countedTerms(byTool: Map<string, Map<string, { weight: number; principals: number }>>, options: LearningOptions): Record<string, LearnedTerm[]> {
  // Maps, turned into records by Object.fromEntries: a tool may be named `__proto__` or `constructor`, which a
  // plain object's assignment would treat as its prototype or find inherited.
  const tools = new Map<string, LearnedTerm[]>();
  for (const [tool, terms] of byTool) {
    const learned: LearnedTerm[] = [];
    for (const [term, { weight, principals }] of terms) {
      if (principals >= options.minPrincipals) learned.push({ term, weight: Number(weight.toFixed(4)), principals });
    }
    if (learned.length === 0) continue;
    learned.sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
    tools.set(tool, learned.slice(0, options.maxTermsPerTool));
  }
  return Object.fromEntries(tools);
}

/** Each tool's callers' profile (CallerProfile), for the tools that minPrincipals distinct principals called. */
function callerProfiles(callers: Map<string, Map<string, Map<string, number>>>, options: LearningOptions): Record<string, CallerProfile> {
  const profiles = new Map<string, CallerProfile>();
  for (const [tool, principals] of callers) {
    if (principals.size < options.minPrincipals) continue;
    const sums = new Map<string, number>();
    /** How many of the tool's principals asked with each term: a term enters the profile only once minPrincipals did. */
    const askers = new Map<string, number>();
    for (const terms of principals.values()) for (const term of terms.keys()) askers.set(term, (askers.get(term) ?? 0) + 1);
    for (const terms of principals.values()) {
      // One principal's share is at most 1 / n (less as its evidence decays), spread over its terms by their weights:
      // many terms from one weigh as few.
      let total = 0;
      let strength = 0;
      for (const weight of terms.values()) {
        total += weight;
        strength = Math.max(strength, weight);
      }
      for (const [term, weight] of terms) {
        if ((askers.get(term) ?? 0) >= options.minPrincipals) sums.set(term, (sums.get(term) ?? 0) + (weight / total) * strength / principals.size);
      }
    }
    if (sums.size === 0) continue;
    const terms = [...sums].map(([term, weight]) => ({ term, weight: Number(weight.toFixed(4)) }))
      .toSorted((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0))
      .slice(0, options.maxTermsPerTool);
    profiles.set(tool, { principals: principals.size, terms });
  }
  return Object.fromEntries(profiles);
}

/** Whether a row still counts as of `now` (a row that no longer does is deleted). */
export function rowCounts(row: Pick<EvidenceRow, "weight" | "at">, now: number, halfLifeDays: number): boolean {
  return decayed(row.weight, row.at, now, halfLifeDays) >= MIN_EVIDENCE_WEIGHT;
}

/** A word that ends a sentence (its punctuation, then closing quotes or brackets). */
const SENTENCE_END = /[.!?]["'\u2019\u201d)\]]*$/u;
const LEADING_PUNCTUATION = /^[^\p{L}\p{N}]+/u;
const CAPITAL = /^\p{Lu}/u;
/** A title or abbreviation before a name: a capital letter, up to two more letters, a full stop. */
const ABBREVIATION = /^\p{Lu}\p{L}{0,2}\.$/u;
const LETTER = /\p{L}/u;
const DIGIT = /\p{N}/u;

/**
 * `query` less the words that say which request rather than which tool: a word written as a name (it starts with a
 * capital letter and does not start a sentence: a person, a place, a month, a product) and a word of letters and
 * digits together (an identifier, a code, a user name, a password). Neither is kept as evidence.
 */
function withoutNamesOrIdentifiers(query: string): string {
  const kept: string[] = [];
  let sentenceStart = true;
  for (const word of query.split(/\s+/u)) {
    if (word === "") continue;
    const bare = word.replace(LEADING_PUNCTUATION, "");
    const name = !sentenceStart && CAPITAL.test(bare);
    const identifier = LETTER.test(word) && DIGIT.test(word);
    if (!name && !identifier) kept.push(word);
    // "Dr." or "St." ends no sentence: the name after it is still a name.
    sentenceStart = SENTENCE_END.test(word) && !ABBREVIATION.test(bare);
  }
  return kept.join(" ");
}
