// One SQLite-backed Durable Object per (principal, session id): the session's discovered set, its client-supplied
// catalog, its confirmations and grants, and an idle timer. Storage and RPC only; the logic is the core's.
// Every read-modify-write of stored state runs without an await in between, so concurrent calls never lose an update.
//
// The object never reads the environment: every call that needs the gateway's configuration gets it from its caller
// (the isolate's settings, parsed once there). Only the alarm has no caller; it uses the session lifetime that the
// last write stored (KEY.ttlMs).
//
// A session counts against limits.maxSessionsPerPrincipal from its first kept write to its end (expiry, or a clear
// that leaves it empty): it joins the principal's index (PrincipalObject) before that write is kept, and a session
// the index has no room for stores nothing and answers a SessionRefusal (429 over HTTP).
import { DurableObject } from "cloudflare:workers";
import type { GatewayConfig, SearchMode } from "../core/config.ts";
import { defaultConfig, discoveredLimit } from "../core/config.ts";
import { DiscoveredSet } from "../core/turn/discovered.ts";
import { createExecutionGuard } from "../core/guard/executionGuard.ts";
import { ConfirmationLedger } from "../core/guard/grants.ts";
import { evictionFor, toolListChangesOnDiscovery } from "../core/turn/prepare.ts";
import type { GrantBinding, GrantState, ResolveOutcome } from "../core/guard/grants.ts";
import { validateToolDefinition } from "../core/tools/definition.ts";
import { SearchIndexCache } from "../core/search/indexCache.ts";
import { MAX_SHOWN_ABOVE } from "../core/learning/evidence.ts";
import { runSearchTools } from "../core/turn/searchTools.ts";
import type { SearchToolsParams, SearchToolsResult } from "../core/turn/searchTools.ts";
import { ToolRegistry } from "../core/tools/toolRegistry.ts";
import type { ConfirmationRequest, OpenConfirmation, ToolCallContext, ToolDefinition, ToolOutcome } from "../core/types.ts";
import { parseSessionObjectName } from "./names.ts";
import { PendingAnswers } from "./pendingAnswers.ts";
import type { AnswerDelivery } from "./pendingAnswers.ts";
import type { SessionIdentity } from "./names.ts";
import type { PrincipalObject } from "./principalObject.ts";
import { orRefusal, sessionRefusalError, TOO_MANY_SESSIONS, tooManySessionsMessage } from "./sessionLimit.ts";
import type { SessionRefusal } from "./sessionLimit.ts";
import { principalStub } from "./stubs.ts";

const DAY_MS = 86_400_000;

/** Keys of the synchronous KV store. */
const KEY = {
  identity: "identity",
  discovered: "discovered",
  /** The discovered names in the order found (first found first): the order of a "stable" tool list. */
  foundOrder: "foundOrder",
  lastActive: "lastActive",
  grants: "grants",
  catalogHash: "catalogHash",
  indexed: "indexedByPrincipal",
  ttlMs: "ttlMs",
  mcp: "mcp",
  /** What the approval page shows for each pending confirmation that has an approval link (by confirmation id). */
  approvalViews: "approvalViews",
  /** Learning from calls: each tool a registry search showed → that search's analyzed terms (most recent last). */
  foundBy: "foundBy",
} as const;

/**
 * What a registry search that showed a tool keeps for learning: its analyzed terms, its id (absent: kept before ids)
 * and the tools it showed above this one, nearest last (absent: kept before them).
 */
export interface FoundBy {
  terms: string[];
  search?: string;
  above?: string[];
}

/** Most tools whose finding search is kept for learning (the latest searches' tools; older ones go first). */
const MAX_FOUND_BY = 64;

/** Most approval pages kept at once (older ones go first); a confirmation past it is approved over HTTP only. */
const MAX_APPROVAL_VIEWS = 32;

/**
 * Stored values every call reads (SessionObject.readKnown), by key. Not the last activity: the alarm and the tests
 * that age a session read and write it in storage.
 */
interface KnownValues {
  [KEY.identity]: SessionIdentity;
  [KEY.indexed]: boolean;
  [KEY.ttlMs]: number;
}

/** The MCP session this session is (src/mcp): what its initialize said. The MCP session id is the session id. */
export interface McpSessionRecord {
  protocolVersion: string;
  /** Whether the client declared the `elicitation` capability (the guard's confirmations are then asked through it). */
  elicitation: boolean;
  /** Whether it declared URL-mode elicitation (a sign-in to an upstream is then offered as one). Absent in older records. */
  elicitationUrl?: boolean;
  client: string;
}

export interface ClientCatalog {
  /** Identifies the catalog's content (a hash), so that an unchanged catalog is neither rewritten nor re-indexed. */
  hash: string;
  tools: ToolDefinition[];
}

export interface SessionPrepareInput {
  identity: SessionIdentity;
  /** Tool names found in this turn's history, oldest first. */
  historyNames: string[];
  /** The client's tools for this turn, or null when the turn uses the registry. */
  catalog: ClientCatalog | null;
  config: GatewayConfig;
}

export interface SessionSearchInput {
  identity: SessionIdentity;
  params: SearchToolsParams;
  mode: SearchMode;
  enabledGroups: string[];
  config: GatewayConfig;
  /**
   * What the registry search (done in the isolate beforehand) returned: these join the set when the session has no
   * client catalog, in the same RPC (one round trip per search).
   */
  registryNames?: string[];
  /**
   * Learning from calls (on): the search's analyzed terms, kept for each of `registryNames`, so that a later call of
   * one of them teaches them (foundTerms). Never the query's text.
   */
  learnTerms?: string[];
}

/** How often a read may move a session's last activity (see noteRead). */
const READ_TOUCH_MS = 60_000;

interface LoadedCatalog {
  hash: string;
  tools: ToolDefinition[];
  names: Set<string>;
  registry?: ToolRegistry;
}

export class SessionObject extends DurableObject<Env> {
  private catalog: LoadedCatalog | null | undefined;
  private readonly indexes = new SearchIndexCache(2);
  /** Whether this instance already knows that an expiry alarm is scheduled. */
  private alarmScheduled = false;
  /** What storage holds for each key readKnown keeps, once read or written (`knownKeys`; absent there: not stored). */
  private known: Partial<KnownValues> = {};
  private readonly knownKeys = new Set<keyof KnownValues>();
  /** Writes seen by this instance (a release that awaited the principal's index checks that none came meanwhile). */
  private writes = 0;
  /** The pending request to join the principal's index, shared by concurrent calls so that they see one answer. */
  private admission: Promise<SessionRefusal | undefined> | undefined;
  /** Server→client requests (MCP elicitation) waiting for the client's answer, bounded (pendingAnswers.ts). */
  private readonly answers = new PendingAnswers();
  /** Open tool-list watches (MCP subscriptions/listen): each gets a byte when the session's tool list changes. */
  private readonly toolListWatchers = new Set<ReadableStreamDefaultController<Uint8Array>>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.createTables();
  }

  // ---- the discovered set -------------------------------------------------------------------------------------

  /** A prepare turn: history names join the set; the client's catalog (if any) becomes the session's catalog. */
  async prepare(input: SessionPrepareInput): Promise<{ discovered: string[]; foundOrder: string[] } | SessionRefusal> {
    const refusal = await this.admit(input.config, input.identity);
    if (refusal) return refusal;
    const discovered = this.touchNow(input.historyNames, input.config);
    this.storeCatalog(input.catalog);
    await this.afterWrite(input.config, input.identity);
    return { discovered, foundOrder: this.ctx.storage.kv.get<string[]>(KEY.foundOrder) ?? discovered.toReversed() };
  }

  /** Names join the set now (the last given ends up most recent); returns the set, most recent first. */
  async touchDiscovered(identity: SessionIdentity, names: string[], config: GatewayConfig): Promise<string[] | SessionRefusal> {
    const refusal = await this.admit(config, identity);
    if (refusal) return refusal;
    const discovered = this.touchNow(names, config);
    await this.afterWrite(config, identity);
    return discovered;
  }

  /**
   * Searches the session's client catalog and records the returned tools as discovered, in one step.
   * Null when the session has no client catalog: the caller's registry result stands, and its `registryNames` have
   * joined the set.
   */
  async search(input: SessionSearchInput): Promise<SearchToolsResult | SessionRefusal | null> {
    const catalog = this.loadCatalog();
    if (!catalog) {
      if (input.registryNames === undefined) return null;
      const refusal = await this.touchDiscovered(input.identity, input.registryNames, input.config);
      if (!Array.isArray(refusal)) return refusal;
      if (input.learnTerms !== undefined && input.learnTerms.length > 0) this.keepFoundBy(input.registryNames, input.learnTerms);
      return null;
    }
    const refusal = await this.admit(input.config, input.identity);
    if (refusal) return refusal;
    const index = this.indexes.get(catalog.hash, input.mode, () => catalog.tools);
    const result = runSearchTools(input.params, {
      catalog: catalog.tools,
      index,
      enabledGroups: input.enabledGroups,
      config: input.config,
    });
    this.touchNow(result.tools.map((tool) => tool.name), input.config);
    await this.afterWrite(input.config, input.identity);
    return result;
  }

  /**
   * The analyzed terms of the latest registry search of this session that showed `name` (learning from calls), with
   * that search's id (the learning object splits one search's evidence among the tools called from it); null when
   * none did. A read of what the session saw, not an activity.
   */
  foundTerms(name: string): FoundBy | null {
    const found = this.ctx.storage.kv.get<Record<string, FoundBy | string[]>>(KEY.foundBy)?.[name];
    // A session kept before searches had ids holds the terms alone: that search is its own.
    return found === undefined ? null : Array.isArray(found) ? { terms: found } : found;
  }

  private keepFoundBy(names: readonly string[], terms: readonly string[]): void {
    if (names.length === 0) return;
    const kept = Object.entries(this.ctx.storage.kv.get<Record<string, FoundBy | string[]>>(KEY.foundBy) ?? {}).filter(([name]) => !names.includes(name));
    const search = crypto.randomUUID();
    // Each shown tool keeps the nearest MAX_SHOWN_ABOVE tools shown above it: those not called were passed over.
    const latest = names.slice(0, MAX_FOUND_BY).map((name, rank) =>
      [name, { terms: [...terms], search, above: names.slice(Math.max(0, rank - MAX_SHOWN_ABOVE), rank) }] as const);
    this.ctx.storage.kv.put(KEY.foundBy, Object.fromEntries([...kept.slice(Math.max(0, kept.length + latest.length - MAX_FOUND_BY)), ...latest]));
  }

  getDiscovered(): string[] {
    this.noteRead();
    return this.ctx.storage.kv.get<string[]>(KEY.discovered) ?? [];
  }

  /** The set and its found order in one round trip (MCP tools/list); a read, so it counts as activity. */
  getDiscoveredState(): { discovered: string[]; foundOrder: string[] } {
    const discovered = this.getDiscovered();
    return { discovered, foundOrder: this.ctx.storage.kv.get<string[]>(KEY.foundOrder) ?? discovered.toReversed() };
  }

  /**
   * Empties the discovered set (memory:clear); the catalog and grants stay. Not an activity: the idle timer runs on.
   * A session left holding nothing else (no client catalog, no confirmation or grant) is deleted at once, which frees
   * its place in the principal's index; it starts again from nothing like any new session.
   */
  async clearDiscovered(): Promise<boolean> {
    const cleared = this.ctx.storage.kv.delete(KEY.discovered);
    this.ctx.storage.kv.delete(KEY.foundOrder);
    this.ctx.storage.kv.delete(KEY.foundBy);
    if (this.holdsNothingElse()) await this.release();
    return cleared;
  }

  // ---- the client catalog -------------------------------------------------------------------------------------

  /**
   * Runs a client tool through a registry of the client catalog (no executors: the answer says the client runs it),
   * with the guard's decision for the audit line.
   * Null when the session has no client catalog or its catalog does not hold `name`: the registry answers then.
   */
  async executeClientTool(
    name: string,
    args: Record<string, unknown>,
    context: ToolCallContext,
    config: GatewayConfig,
  ): Promise<ToolOutcome | null> {
    // Every execute passes here, client tool or not: a session used only for executes stays alive.
    this.noteRead();
    const catalog = this.loadCatalog();
    if (!catalog?.names.has(name)) return null;
    if (!catalog.registry) {
      const registry = new ToolRegistry({ logger: console, locale: config.locale });
      registry.registerMany(catalog.tools, "client");
      // Client tools pass the same guard as the registry's (banned callers, denied capabilities, overrides); the
      // grants it consults are this session's own.
      registry.setExecutionGuard(createExecutionGuard({
        config,
        session: () => ({
          consumeGrant: async (capability, binding) => orRefusal(await this.consumeGrant(capability, binding, config)),
          requestConfirmation: async (capability, mode, binding) => orRefusal(await this.requestConfirmation(capability, mode, binding, config)),
        }),
      }));
      catalog.registry = registry;
    }
    return catalog.registry.executeWithDecision(name, args, context);
  }

  /**
   * `call_tool`'s session work in one round trip: a tool this session has found (or an always-direct one) gets its
   * place in the discovered set refreshed (a history of call_tool calls shows prepare no tool name); then the client
   * catalog's run of it (null: the registry answers). A tool not found here runs too (the guard is the boundary) but
   * does not join the set: only search adds to it.
   */
  async callFoundTool(
    identity: SessionIdentity,
    name: string,
    args: Record<string, unknown>,
    context: ToolCallContext,
    config: GatewayConfig,
  ): Promise<{ client: ToolOutcome | null } | SessionRefusal> {
    if (this.getDiscovered().includes(name) || config.alwaysDirectTools.includes(name)) {
      const touched = await this.touchDiscovered(identity, [name], config);
      if (!Array.isArray(touched)) return touched;
    }
    return { client: await this.executeClientTool(name, args, context, config) };
  }

  // ---- the MCP session (src/mcp) ---------------------------------------------------------------------------------

  /** An MCP initialize: the session starts (it takes a place in the principal's index) and keeps the record. */
  async openMcp(identity: SessionIdentity, record: McpSessionRecord, config: GatewayConfig): Promise<{ opened: true } | SessionRefusal> {
    const refusal = await this.admit(config, identity);
    if (refusal) return refusal;
    this.ctx.storage.kv.put(KEY.mcp, record);
    await this.afterWrite(config, identity);
    return { opened: true };
  }

  /**
   * The MCP session's record (undefined: no such MCP session here); a request to it counts as activity (noteRead: at
   * most one write a minute, not one per request).
   */
  getMcp(): McpSessionRecord | undefined {
    const record = this.ctx.storage.kv.get<McpSessionRecord>(KEY.mcp);
    if (record) this.noteRead();
    return record;
  }

  /** DELETE /mcp: the MCP session ends and its discovered set goes; false when there was none. */
  async closeMcp(): Promise<boolean> {
    if (!this.ctx.storage.kv.delete(KEY.mcp)) return false;
    this.answers.clear();
    await this.clearDiscovered();
    return true;
  }

  /**
   * Announces a server→client request of this session (an MCP elicitation) before it is sent: only an announced id's
   * answer is taken (deliverAnswer), and only until `timeoutMs` has passed. False when too many already wait.
   */
  expectAnswer(id: string, timeoutMs: number): boolean {
    return this.answers.expect(id, timeoutMs);
  }

  /**
   * Waits for the client's answer to an announced request (the JSON text of the JSON-RPC response), which another
   * request hands over with deliverAnswer, possibly from another isolate; null when the request expires first, the
   * session ends, or the id was never announced.
   */
  awaitAnswer(id: string): Promise<string | null> {
    return this.answers.wait(id);
  }

  /** Hands a client's answer to its announced request; an id no pending request has is refused, never kept. */
  deliverAnswer(id: string, text: string): AnswerDelivery {
    return this.answers.deliver(id, text);
  }

  /**
   * A stream that carries one byte each time this session's tool list changes (a search found a tool new to it), for
   * as long as the reader keeps it open: MCP's subscriptions/listen, which the Worker turns into notifications.
   */
  watchToolList(): ReadableStream<Uint8Array> {
    let watcher: ReadableStreamDefaultController<Uint8Array> | undefined;
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        watcher = controller;
        this.toolListWatchers.add(controller);
      },
      cancel: () => {
        if (watcher) this.toolListWatchers.delete(watcher);
      },
    });
  }

  private announceToolListChange(): void {
    for (const watcher of this.toolListWatchers) {
      try {
        watcher.enqueue(new Uint8Array([10]));
      } catch {
        this.toolListWatchers.delete(watcher);
      }
    }
  }

  // ---- confirmations and grants (the guard's SessionGrants, with the configuration) --------------------------

  /** What a pending confirmation is bound to (the digests of its tool and arguments); null when none is pending. */
  confirmationBinding(id: string): GrantBinding | null {
    const state = this.ctx.storage.kv.get<GrantState>(KEY.grants);
    const pending = new ConfirmationLedger(state).pendingAt(Date.now()).find((entry) => entry.id === id);
    return pending ? { tool: pending.tool, arguments: pending.arguments } : null;
  }

  /**
   * Keeps what the approval page of a pending confirmation shows (the confirmation as the guard made it: tool,
   * description, marked arguments); answers its binding, or null when it is not pending (no page is kept then).
   */
  async keepApprovalView(view: ConfirmationRequest, config: GatewayConfig): Promise<GrantBinding | null> {
    const binding = this.confirmationBinding(view.id);
    if (binding === null) return null;
    const now = Date.now();
    const kept = Object.entries(this.ctx.storage.kv.get<Record<string, ConfirmationRequest>>(KEY.approvalViews) ?? {})
      .filter(([id, entry]) => id !== view.id && entry.expiresAt > now)
      .slice(-(MAX_APPROVAL_VIEWS - 1));
    this.ctx.storage.kv.put(KEY.approvalViews, Object.fromEntries([...kept, [view.id, view]]));
    await this.afterWrite(config);
    return binding;
  }

  /** A pending confirmation's approval page and binding; null once it was answered, expired, or has no page. */
  approvalView(id: string): { view: ConfirmationRequest; binding: GrantBinding } | null {
    const binding = this.confirmationBinding(id);
    const view = this.ctx.storage.kv.get<Record<string, ConfirmationRequest>>(KEY.approvalViews)?.[id];
    return binding !== null && view !== undefined ? { view, binding } : null;
  }

  /**
   * Whether a grant for the call was there (and is now used). The guard's session calls answer a refusal (a new
   * session past the principal's limit, which keeps nothing) as a value, not thrown: orRefusal throws it on the
   * caller's side.
   */
  async consumeGrant(capability: string, binding: GrantBinding, config: GatewayConfig): Promise<boolean | SessionRefusal> {
    const now = Date.now();
    const ledger = this.ledger(now);
    const granted = ledger.consume(capability, binding, now);
    this.ctx.storage.kv.put(KEY.grants, ledger.toState());
    return (await this.afterWriteOrRefusal(config)) ?? granted;
  }

  /** A confirmation opened for the call, or a refusal (as consumeGrant's). */
  async requestConfirmation(
    capability: string,
    mode: "session" | "always",
    binding: GrantBinding,
    config: GatewayConfig,
  ): Promise<OpenConfirmation | SessionRefusal> {
    const now = Date.now();
    const ledger = this.ledger(now);
    const request = ledger.request(capability, mode, binding, confirmationTtlMs(config), now, () => crypto.randomUUID());
    this.ctx.storage.kv.put(KEY.grants, ledger.toState());
    return (await this.afterWriteOrRefusal(config)) ?? request;
  }

  /**
   * Approves or denies a pending confirmation, once. With `binding`, only the confirmation of exactly that tool
   * definition and those arguments (an MCP request state names both): any other answers not_found and stays open.
   */
  async resolveConfirmation(id: string, approve: boolean, config: GatewayConfig, binding?: GrantBinding): Promise<ResolveOutcome> {
    const now = Date.now();
    // A session that never asked for a confirmation has nothing to resolve: answer without creating it.
    const stored = this.ctx.storage.kv.get<GrantState>(KEY.grants);
    if (stored === undefined) return { ok: false, code: "not_found" };
    if (binding !== undefined) {
      const pending = (Array.isArray(stored.pending) ? stored.pending : []).find((entry) => entry.id === id);
      if (pending && (pending.tool !== binding.tool || pending.arguments !== binding.arguments)) return { ok: false, code: "not_found" };
    }
    // Resolve before pruning: an expired confirmation answers `expired` (410) once, rather than vanishing as unknown.
    const ledger = new ConfirmationLedger(this.ctx.storage.kv.get<GrantState>(KEY.grants));
    const outcome = ledger.resolve(id, approve, confirmationTtlMs(config), now);
    ledger.prune(now);
    this.ctx.storage.kv.put(KEY.grants, ledger.toState());
    await this.afterWrite(config);
    return outcome;
  }

  // ---- expiry ---------------------------------------------------------------------------------------------------

  /**
   * Deletes everything once the session has been idle for sessionTtlDays (as of its last write); otherwise waits for
   * the new deadline.
   */
  override async alarm(): Promise<void> {
    const lastActive = this.ctx.storage.kv.get<number>(KEY.lastActive);
    const deadline = (lastActive ?? 0) + this.ttlMs();
    if (lastActive !== undefined && Date.now() < deadline) {
      await this.ctx.storage.setAlarm(deadline);
      this.alarmScheduled = true;
      return;
    }
    if (!(await this.release())) {
      // Written to while it was leaving the index: it lives on, with a new deadline.
      await this.ctx.storage.setAlarm(Date.now() + this.ttlMs());
      this.alarmScheduled = true;
    }
  }

  /**
   * Deletes the session's storage and frees its place in the principal's index; false when a write came in meanwhile
   * (the session then stays, and stays listed). The index entry goes first: if that call fails, everything is still
   * here for the alarm's retry, whereas deleting first would forget whose entry it was and leak the place for good.
   */
  private async release(): Promise<boolean> {
    const identity = this.readKnown(KEY.identity);
    if (identity && this.readKnown(KEY.indexed) === true) {
      const writes = this.writes;
      const principal = this.principal(identity);
      await principal.removeSession(identity.sessionId);
      // The object serves other calls while it awaits another object: one may have written (it saw the session
      // still listed). Keep the session, and list it again (it held a place a moment ago: no limit applies).
      if (this.writes !== writes) {
        await principal.addSession(identity.sessionId);
        return false;
      }
    }
    await this.wipe();
    return true;
  }

  /** Deletes every stored thing, the alarm included; this instance may serve the session again if it comes back. */
  private async wipe(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.known = {};
    this.knownKeys.clear();
    // deleteAll drops the tables too.
    this.createTables();
    this.catalog = undefined;
    this.alarmScheduled = false;
  }

  /** Whether the session holds nothing but its discovered set: no client catalog, MCP session, confirmation or grant. */
  private holdsNothingElse(): boolean {
    if (this.ctx.storage.kv.get<string>(KEY.catalogHash) !== undefined) return false;
    if (this.ctx.storage.kv.get<McpSessionRecord>(KEY.mcp) !== undefined) return false;
    const stored = this.ctx.storage.kv.get<GrantState>(KEY.grants);
    if (stored === undefined) return true;
    const state = new ConfirmationLedger(stored).toState();
    return state.pending.length === 0 && state.grants.length === 0;
  }

  private principal(identity: SessionIdentity): DurableObjectStub<PrincipalObject> {
    return principalStub(this.env, identity.principalId);
  }

  /**
   * Joins the principal's index unless already listed; a SessionRefusal when the index has no room (then nothing
   * of this session is stored). Concurrent calls share one request. An object whose name names no session (not one
   * of ours) has nothing to be counted under and is let through.
   */
  private admit(config: GatewayConfig, given?: SessionIdentity): Promise<SessionRefusal | undefined> {
    if (this.readKnown(KEY.indexed) === true) return Promise.resolve(undefined);
    this.admission ??= this.requestAdmission(config.limits.maxSessionsPerPrincipal, given).finally(() => {
      this.admission = undefined;
    });
    return this.admission;
  }

  private async requestAdmission(limit: number, given?: SessionIdentity): Promise<SessionRefusal | undefined> {
    const identity = this.readKnown(KEY.identity) ??
      given ?? (this.ctx.id.name !== undefined ? parseSessionObjectName(this.ctx.id.name) : undefined);
    if (!identity) return undefined;
    if (!(await this.principal(identity).addSession(identity.sessionId, limit))) {
      return { refused: tooManySessionsMessage(limit) };
    }
    this.writeKnown(KEY.identity, identity);
    this.writeKnown(KEY.indexed, true);
    return undefined;
  }

  // ---- internals ------------------------------------------------------------------------------------------------

  /**
   * A key every call reads, from memory after its first read: this object is the only writer of its storage, so what
   * it last read or wrote is what is stored (each read was a storage query on every request).
   */
  private readKnown<K extends keyof KnownValues>(key: K): KnownValues[K] | undefined {
    if (this.knownKeys.has(key)) return this.known[key];
    const value = this.ctx.storage.kv.get<KnownValues[K]>(key);
    if (value !== undefined) this.known[key] = value;
    this.knownKeys.add(key);
    return value;
  }

  private writeKnown<K extends keyof KnownValues>(key: K, value: KnownValues[K]): void {
    this.ctx.storage.kv.put(key, value);
    this.known[key] = value;
    this.knownKeys.add(key);
  }

  /**
   * A read counts as activity too (the idle lifetime runs from the last use, not the last write): a stored session's
   * last activity moves to now, at most once per READ_TOUCH_MS (the lifetime is days; one write a minute is plenty).
   * A session that stores nothing stays so.
   */
  private noteRead(): void {
    const last = this.ctx.storage.kv.get<number>(KEY.lastActive);
    const now = Date.now();
    if (last !== undefined && now - last >= READ_TOUCH_MS) this.ctx.storage.kv.put(KEY.lastActive, now);
  }

  private createTables(): void {
    this.ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS catalog_tools (position INTEGER PRIMARY KEY, definition TEXT NOT NULL)",
    );
  }

  /** The session lifetime the last write stored (the default for a session stored before it was kept). */
  private ttlMs(): number {
    return this.readKnown(KEY.ttlMs) ?? sessionTtlMs(defaultConfig());
  }

  private touchNow(names: readonly string[], config: GatewayConfig): string[] {
    const stored = this.getDiscovered();
    // A set stored before the found order was kept reads its oldest use as its first find.
    const foundOrder = this.ctx.storage.kv.get<string[]>(KEY.foundOrder);
    const set = new DiscoveredSet(discoveredLimit(config), stored, {
      eviction: evictionFor(config.toolList),
      ...(foundOrder ? { foundOrder } : {}),
    });
    set.touch(names);
    const discovered = set.toArray();
    // Unchanged (a turn that discovered nothing new, a search that found what is already on top): no storage write,
    // so the answer does not wait for one. The found order changes only with the membership, so it is written with it.
    if (discovered.length !== stored.length || discovered.some((name, index) => name !== stored[index])) {
      this.ctx.storage.kv.put(KEY.discovered, discovered);
      this.ctx.storage.kv.put(KEY.foundOrder, set.foundOrder());
      // A name that joined changes a "grow" or "stable" list (a "fixed" one never changes): tell the watchers.
      if (toolListChangesOnDiscovery(config) && discovered.some((name) => !stored.includes(name))) this.announceToolListChange();
    }
    return discovered;
  }

  private ledger(now: number): ConfirmationLedger {
    const ledger = new ConfirmationLedger(this.ctx.storage.kv.get<GrantState>(KEY.grants));
    ledger.prune(now);
    return ledger;
  }

  /** Who this session belongs to: given by the worker, else remembered, else read from the object's name. */
  private identity(given?: SessionIdentity): SessionIdentity | undefined {
    const stored = this.readKnown(KEY.identity);
    if (stored) return stored;
    const identity = given ?? (this.ctx.id.name !== undefined ? parseSessionObjectName(this.ctx.id.name) : undefined);
    if (identity) this.writeKnown(KEY.identity, identity);
    return identity;
  }

  /**
   * After any write: note the activity, keep an expiry alarm, and make sure the session is in the principal's index.
   * The routes of the discovered set ask first (admit) and store nothing when refused; a write that did not (the
   * guard's confirmations and grants on a new session) is undone when the index has no room, and the refusal is
   * answered (afterWriteOrRefusal: the guard's calls, which the execute route answers with 429) or thrown (the others,
   * admitted before they write). A session that is not listed has stored nothing before this call.
   */
  private async afterWrite(config: GatewayConfig, given?: SessionIdentity): Promise<void> {
    const refusal = await this.afterWriteOrRefusal(config, given);
    if (refusal) throw sessionRefusalError(refusal);
  }

  /** afterWrite, answering its refusal (the session's writes undone) rather than throwing it. */
  private async afterWriteOrRefusal(config: GatewayConfig, given?: SessionIdentity): Promise<SessionRefusal | undefined> {
    this.writes++;
    const now = Date.now();
    // Only what changed is written (the activity at most once per READ_TOUCH_MS; the lifetime is days): a steady
    // session's prepare and search then write nothing and answer without waiting for storage.
    const last = this.ctx.storage.kv.get<number>(KEY.lastActive);
    if (last === undefined || now - last >= READ_TOUCH_MS) this.ctx.storage.kv.put(KEY.lastActive, now);
    const ttlMs = sessionTtlMs(config);
    if (this.readKnown(KEY.ttlMs) !== ttlMs) this.writeKnown(KEY.ttlMs, ttlMs);
    this.identity(given);
    if (!this.alarmScheduled) {
      if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(now + this.ttlMs());
      this.alarmScheduled = true;
    }
    const refusal = await this.admit(config, given);
    if (refusal) {
      await this.wipe();
      console.warn(`session: a write refused and undone, ${TOO_MANY_SESSIONS}: ${refusal.refused}`);
    }
    return refusal;
  }

  private storeCatalog(catalog: ClientCatalog | null): void {
    const storedHash = this.ctx.storage.kv.get<string>(KEY.catalogHash);
    if (catalog === null) {
      if (storedHash === undefined) return;
      this.ctx.storage.sql.exec("DELETE FROM catalog_tools");
      this.ctx.storage.kv.delete(KEY.catalogHash);
      this.catalog = null;
      return;
    }
    if (storedHash === catalog.hash) return;
    this.ctx.storage.transactionSync(() => {
      this.ctx.storage.sql.exec("DELETE FROM catalog_tools");
      catalog.tools.forEach((tool, position) => {
        this.ctx.storage.sql.exec("INSERT INTO catalog_tools (position, definition) VALUES (?, ?)", position, JSON.stringify(tool));
      });
      this.ctx.storage.kv.put(KEY.catalogHash, catalog.hash);
    });
    this.catalog = loadedCatalog(catalog.hash, catalog.tools);
  }

  private loadCatalog(): LoadedCatalog | null {
    if (this.catalog !== undefined) return this.catalog;
    const hash = this.ctx.storage.kv.get<string>(KEY.catalogHash);
    if (hash === undefined) {
      this.catalog = null;
      return null;
    }
    const tools = this.ctx.storage.sql
      .exec<{ definition: string }>("SELECT definition FROM catalog_tools ORDER BY position")
      .toArray()
      .map((row) => {
        const parsed: unknown = JSON.parse(row.definition);
        return validateToolDefinition(parsed, { allowEmptyDescription: true });
      });
    this.catalog = loadedCatalog(hash, tools);
    return this.catalog;
  }
}

function sessionTtlMs(config: GatewayConfig): number {
  return config.sessionTtlDays * DAY_MS;
}

function confirmationTtlMs(config: GatewayConfig): number {
  return config.limits.confirmationTtlSeconds * 1000;
}

function loadedCatalog(hash: string, tools: ToolDefinition[]): LoadedCatalog {
  return { hash, tools, names: new Set(tools.map((tool) => tool.name)) };
}
