// One upstream MCP server (PUT /v1/upstreams/:id), one object per id: its configuration, the pins of its tools, the
// quarantine, its health (failures, skipped-until) and an alarm for `refreshSeconds`. A refresh lists the server's
// tools and makes them the whole of the registry context `upstream:<id>` in one write (one version step); tools/call
// runs here too; the state is stored by upstreamStore.ts (a small head value, and rows for what grows with the server), so that a tool put in quarantine or a server being skipped takes effect at once on every isolate.
import { DurableObject } from "cloudflare:workers";
import { afterFailure, afterSuccess, HEALTHY, isSkipped } from "../core/upstream/backoff.ts";
import type { UpstreamHealth } from "../core/upstream/backoff.ts";
import { UPSTREAM_LIMITS, upstreamContext } from "../core/upstream/config.ts";
import type { UpstreamConfig } from "../core/upstream/config.ts";
import { definitionFromMcpTool, readMcpTool } from "../core/upstream/mcpTool.ts";
import type { McpTool, McpToolAnnotations } from "../core/upstream/mcpTool.ts";
import { upstreamToolGuard } from "../core/upstream/toolGuard.ts";
import type { UpstreamToolGuard } from "../core/upstream/toolGuard.ts";
import { acceptQuarantined, planImport } from "../core/upstream/pins.ts";
import { encodeToolCursor, QUARANTINE_PAGE, TOOL_PAGE } from "../core/upstream/toolPage.ts";
import type { ToolPageStart } from "../core/upstream/toolPage.ts";
import type { AcceptChoice, QuarantinedTool } from "../core/upstream/pins.ts";
import type { UpstreamCallOutcome } from "../core/upstream/result.ts";
import { isRecord } from "../core/records.ts";
import { ANONYMOUS_PRINCIPAL_ID } from "../core/guard/authority.ts";
import { secretHeaderValues } from "../core/boundary/secrets.ts";
import { prefixedToolName } from "../core/tools/toolNames.ts";
import { utf8Length } from "../core/tools/definition.ts";
import type { DeclaredConfirm, Risk, ToolDefinition, Visibility } from "../core/types.ts";
import type { RegistryVersion } from "./registryObject.ts";
import { registryStub } from "./stubs.ts";
import { emptyRows, UpstreamStore } from "./upstreamStore.ts";
import type { RejectedTool, UpstreamHead, UpstreamState } from "./upstreamStore.ts";
import { callUpstreamTool, connectUpstream, isServerAnswer, isServerFailure, listAllTools } from "./upstreamClient.ts";
import { UpstreamUnauthorized } from "./modernUpstream.ts";
import { UpstreamOAuthSide } from "./upstreamOAuth.ts";
import type { SignInStart } from "./upstreamOAuth.ts";
import type { UpstreamConnection, UpstreamTransport } from "./upstreamClient.ts";

export type { RejectedTool } from "./upstreamStore.ts";

/** What GET /v1/upstreams shows of one upstream. */
export interface UpstreamSummary {
  id: string;
  url: string;
  prefix: string;
  status: "pending" | "ok" | "failing" | "skipped";
  tools: number;
  quarantined: number;
  rejected: number;
  transport: UpstreamTransport | null;
  lastRefresh: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  consecutiveFailures: number;
  skippedUntil: string | null;
  refreshSeconds: number | null;
  newTools: UpstreamConfig["newTools"];
}

/** GET /v1/upstreams/:id: the summary, the configuration, a page of the tools' catalog names and what is held or refused. */
export interface UpstreamDetail extends UpstreamSummary {
  config: UpstreamConfig;
  /**
   * One page of the registered tools (core/upstream/toolPage.ts), in the server's list order: each tool's catalog
   * name, the server's name, its annotations and the guard they mapped to.
   */
  toolNames: { name: string; upstreamName: string; annotations: McpToolAnnotations; visibility: Visibility; risk: Risk; confirm: DeclaredConfirm | "off" }[];
  /** The cursor of the next page of `toolNames`; absent on the last page. */
  nextCursor?: string;
  /** One page of the held tools (QUARANTINE_PAGE), in list order, each with `digest`, what POST accept names it by. */
  quarantine: (QuarantinedTool & { digest: string })[];
  /** The cursor of the next page of `quarantine`; absent on the last page. */
  quarantineNextCursor?: string;
  rejectedTools: RejectedTool[];
}

/** Which page of each list GET /v1/upstreams/:id shows (the first of each when absent). */
export interface DetailPages {
  tools?: { start?: ToolPageStart; limit: number };
  quarantine?: { start?: ToolPageStart; limit: number };
}

export type UpstreamAnswer<T> = { ok: true; value: T; registry?: RegistryVersion } | { ok: false; code: "not_found" | "too_many_tools" | "not_in_quarantine" | "quarantine_changed"; message: string };

function iso(epochMs: number): string | null {
  return epochMs > 0 ? new Date(epochMs).toISOString() : null;
}

function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 0 ? message : "unknown error";
}

export class UpstreamObject extends DurableObject<Env> {
  private readonly store: UpstreamStore;
  /** `auth: {type: "oauth"}`: discovery, clients, the generation grants are tied to, their holders (upstreamOAuth.ts). */
  private readonly oauth: UpstreamOAuthSide;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new UpstreamStore(ctx.storage);
    this.oauth = new UpstreamOAuthSide(ctx.storage, env);
  }

  private state(): UpstreamState | undefined {
    return this.store.state();
  }

  private save(state: UpstreamState): void {
    this.store.save(state);
  }

  /** Stores the configuration and lists the server's tools; the configuration stays even when the list fails. */
  async configure(config: UpstreamConfig, maxTools: number, owner = ""): Promise<UpstreamAnswer<UpstreamDetail> & { created: boolean }> {
    const previous = this.store.head();
    // Only the head changes: the rows (tools, pins, quarantine) stay as they are until the list.
    const head: UpstreamHead = {
      config,
      maxTools,
      // A new URL or new headers: the old failures say nothing about them.
      health: previous && previous.config.url === config.url ? previous.health : HEALTHY,
      lastRefresh: previous?.lastRefresh ?? 0,
      transport: previous && previous.config.url === config.url ? previous.transport : null,
    };
    if (previous) this.store.putHead(head);
    else this.save({ ...head, ...emptyRows() });
    this.oauth.configure(config, owner);
    const answer = await this.refresh(true);
    return { ...answer, created: previous === undefined };
  }

  /** What GET /v1/upstreams shows: the head and counts, no row of tools read. */
  summary(): UpstreamSummary | null {
    const head = this.store.head();
    return head ? this.summarize(head, this.store.counts()) : null;
  }

  /** The detail with the page of `toolNames` after `start` (from the first without one). */
  detail(pages: DetailPages = {}): UpstreamDetail | null {
    const head = this.store.head();
    return head ? this.describe(head, pages) : null;
  }

  /**
   * Lists the tools and registers them. `force` (PUT, POST refresh) lists even while the server is skipped; the alarm
   * and list_changed respect the skip.
   */
  async refresh(force: boolean): Promise<UpstreamAnswer<UpstreamDetail>> {
    const state = this.state();
    if (!state) return { ok: false, code: "not_found", message: "no such upstream" };
    const now = Date.now();
    this.schedule(state.config);
    if (!force && isSkipped(state.health, now)) return { ok: true, value: this.describe(state) };
    let listed: unknown[];
    let transport: UpstreamTransport;
    try {
      // An OAuth server's list: the owner's own grant when the owner signed in, else asked without one (a public list).
      const ownerToken = state.config.auth ? await this.ownerAccessToken(state.config) : undefined;
      const connection = await this.openConnection(state, UPSTREAM_LIMITS.listResponseBytes, undefined, true, ownerToken);
      transport = connection.transport;
      try {
        listed = await listAllTools(connection, {
          maxPages: UPSTREAM_LIMITS.listPages,
          maxTools: state.maxTools,
          maxBytes: UPSTREAM_LIMITS.listBytesPerRefresh,
          timeoutMs: state.config.timeoutMs,
        });
      } finally {
        await connection.close().catch(() => undefined);
      }
    } catch (error) {
      const latest = this.state();
      if (!latest) return { ok: false, code: "not_found", message: "no such upstream" };
      const reason = error instanceof UpstreamUnauthorized
        ? "the server lists its tools only for a signed-in user: the owner signs in once (POST /v1/upstreams/:id/connect gives the link)"
        : errorText(error);
      const failed = { ...latest, health: afterFailure(latest.health, `tools/list: ${reason}`, now) };
      this.store.putHead(failed);
      return { ok: true, value: this.describe(failed) };
    }
    // The owner may have reconfigured (or removed) the upstream while the list was on its way: that list is stale.
    const latest = this.state();
    if (!latest || JSON.stringify(latest.config) !== JSON.stringify(state.config)) {
      return latest ? { ok: true, value: this.describe(latest) } : { ok: false, code: "not_found", message: "no such upstream" };
    }
    const tools: McpTool[] = [];
    const rejected: RejectedTool[] = [];
    const seen = new Set<string>();
    let storedBytes = 0;
    const order = new Map<string, number>();
    for (const item of listed) {
      const read = readMcpTool(item);
      if ("problem" in read) {
        // A name too long to take is shown cut, marked so: never the same as a tool that was taken.
        const name = isRecord(item) && typeof item.name === "string" ? (item.name.length > 256 ? `${item.name.slice(0, 255)}…` : item.name) : "?";
        rejected.push({ name, reason: read.problem });
      } else if (seen.has(read.tool.name)) {
        rejected.push({ name: read.tool.name, reason: "listed twice" });
      } else {
        seen.add(read.tool.name);
        order.set(read.tool.name, order.size);
        const bytes = utf8Length(JSON.stringify(read.tool));
        if (storedBytes + bytes > UPSTREAM_LIMITS.toolBytesPerUpstream) {
          rejected.push({
            name: read.tool.name,
            reason: `the tools listed before it take ${storedBytes} bytes of JSON and this one ${bytes}; an upstream's tools may take at most ${UPSTREAM_LIMITS.toolBytesPerUpstream}`,
          });
          continue;
        }
        storedBytes += bytes;
        tools.push(read.tool);
      }
    }
    const plan = await planImport({
      listed: tools,
      pins: latest.pins,
      quarantine: latest.quarantine,
      policy: latest.config.newTools,
      firstImport: latest.lastRefresh === 0,
      now,
    });
    const next: UpstreamState = {
      ...latest,
      pins: plan.pins,
      quarantine: Object.fromEntries(plan.quarantined.map((held) => [held.name, held])),
      accepted: plan.accepted,
      listRejected: rejected,
      rejected,
      health: afterSuccess(latest.health),
      lastRefresh: now,
      transport,
      order,
    };
    return this.register(next);
  }

  /** Accepts the named quarantined tools, each only in the version whose digest the owner was shown, and registers them. */
  async accept(choices: AcceptChoice[]): Promise<UpstreamAnswer<UpstreamDetail>> {
    const state = this.state();
    if (!state) return { ok: false, code: "not_found", message: "no such upstream" };
    const outcome = acceptQuarantined(state.pins, state.quarantine, choices, Date.now());
    if (!outcome.ok) {
      if (outcome.unknown.length > 0) {
        return { ok: false, code: "not_in_quarantine", message: `not in quarantine: ${outcome.unknown.slice(0, 10).join(", ")}` };
      }
      const changed = outcome.changed.slice(0, 10).map((held) => `${held.name} (now ${held.digest})`).join(", ");
      return {
        ok: false,
        code: "quarantine_changed",
        message: `the upstream listed another version since the digest you accepted; nothing was accepted; look again: ${changed}`,
      };
    }
    const acceptedNames = new Set(outcome.accepted.map((tool) => tool.name));
    return this.register({
      ...state,
      pins: outcome.pins,
      quarantine: outcome.quarantine,
      accepted: [...state.accepted.filter((tool) => !acceptedNames.has(tool.name)), ...outcome.accepted],
    });
  }

  /** Removes the upstream: its tools leave the registry, its state and alarm go. */
  async remove(id: string): Promise<{ removed: boolean; tools: number; grantsDeleted: number } & RegistryVersion> {
    const state = this.state();
    // Every user's grant goes with it (those past the fan-out are refused by their generation, which goes too).
    const grantsDeleted = state?.config.auth ? await this.oauth.removeAll(id) : 0;
    const registry = registryStub(this.env);
    const disposed = await registry.disposeContext(upstreamContext(id));
    await registry.removeUpstream(id);
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    // The same instance may configure the id again: its tables must be there.
    this.store.createTables();
    this.oauth.createTables();
    return { removed: state !== undefined, tools: disposed.removed, grantsDeleted, epoch: disposed.epoch, version: disposed.version };
  }

  /**
   * tools/call on the upstream, for the `mcp` executor, on a connection of its own, closed when the call is done: no
   * call shares a connection (or the server's MCP session) with another, so no caller can cut off another's call.
   * Refused while the tool is not registered (quarantined, gone) or the server is skipped. Only the server's own
   * failures count toward the skip (isServerFailure); a call cut off after it was sent is never sent again (it may
   * have run), and its error says so.
   */
  async callTool(tool: string, args: Record<string, unknown>, maxResultBytes: number, principalId?: string, retried = false): Promise<UpstreamCallOutcome> {
    const state = this.store.head();
    if (!state) return { ok: false, error: "this upstream MCP server was removed" };
    const { id } = state.config;
    if (this.store.isQuarantined(tool)) {
      return { ok: false, error: `"${tool}" of ${id} changed upstream and is held until the owner accepts it` };
    }
    if (!this.store.isAccepted(tool)) return { ok: false, error: `${id} has no tool "${tool}"` };
    const now = Date.now();
    if (isSkipped(state.health, now)) {
      return {
        ok: false,
        error: `the MCP server ${id} is skipped until ${iso(state.health.skippedUntil) ?? "later"} after ${state.health.failures} failures in a row (last: ${state.health.lastError ?? "unknown"})`,
      };
    }
    // An OAuth upstream: the caller's own grant, never another's; none (or the anonymous caller): a sign-in first.
    let accessToken: string | undefined;
    if (state.config.auth) {
      const caller = principalId ?? ANONYMOUS_PRINCIPAL_ID;
      if (caller === ANONYMOUS_PRINCIPAL_ID) return { ok: false, error: `${id} acts as each user's own account: sign in to toolgate first (anonymous callers cannot use it)` };
      try {
        accessToken = await this.oauth.accessToken(state.config, caller);
      } catch (error) {
        return { ok: false, error: `${id}: the grant could not be read (${errorText(error)})` };
      }
      if (accessToken === undefined) return this.signInNeeded(id);
    }
    const refused = async (error: unknown): Promise<UpstreamCallOutcome | undefined> => {
      if (!(error instanceof UpstreamUnauthorized) || accessToken === undefined || principalId === undefined) return undefined;
      // Revoked or expired at the server: the grant is dropped, and the next call asks again. A grant refreshed
      // meanwhile (rotation ended this token) is kept, and the call is made once more with it (a 401 ran nothing).
      if (await this.oauth.forget(state.config, principalId, accessToken) || retried) return this.signInNeeded(id);
      return this.callTool(tool, args, maxResultBytes, principalId, true);
    };
    let connection: UpstreamConnection;
    try {
      // A list_changed heard on this connection: list again soon (the alarm), not in a call's time.
      connection = await this.openConnection(state, maxResultBytes, () => this.listSoon(), false, accessToken);
    } catch (error) {
      const signIn = await refused(error);
      if (signIn) return signIn;
      if (isServerFailure(error)) this.noteHealth((health) => afterFailure(health, `tools/call ${tool}: ${errorText(error)}`, now));
      // The text may carry the server's own words (an HTTP body, a JSON-RPC error message): the executor wraps it.
      return { ok: false, error: `${id}: ${errorText(error)} (the call was not sent)`, fromUpstream: true };
    }
    try {
      const result = await callUpstreamTool(connection, tool, args, state.config.timeoutMs);
      this.noteHealth(afterSuccess);
      return { ok: true, result };
    } catch (error) {
      const signIn = await refused(error);
      if (signIn) return signIn;
      // Past the size cap the caller's arguments asked for too much: the server worked.
      if (!connection.signal.aborted && isServerFailure(error)) {
        this.noteHealth((health) => afterFailure(health, `tools/call ${tool}: ${errorText(error)}`, now));
      }
      const sent = isServerAnswer(error) ? "" : " (the call was sent and may have run on the server; it was not sent again)";
      return { ok: false, error: `${id}: ${errorText(error)}${sent}`, fromUpstream: true };
    } finally {
      // Ending the server's session (a DELETE) is not the caller's wait.
      void connection.close().catch(() => undefined);
    }
  }

  /** The authorization URL of a new sign-in for this upstream (the connect route makes `state` and the PKCE pair). */
  async beginSignIn(origin: string, state: string, codeChallenge: string): Promise<SignInStart> {
    const head = this.store.head();
    if (!head) return { ok: false, error: "no such upstream" };
    return this.oauth.beginSignIn(head.config, origin, state, codeChallenge);
  }

  /** The callback: the code exchanged, the grant stored in the principal's own object; then a list when it was the owner. */
  async completeSignIn(
    principalId: string,
    flow: { generation: string; code: string; verifier: string; redirectUri: string; issuer: string | undefined },
  ): Promise<{ ok: true } | { ok: false; error: string }> {
    const head = this.store.head();
    if (!head) return { ok: false, error: "this upstream was removed" };
    const outcome = await this.oauth.completeSignIn(head.config, principalId, flow);
    // The owner's first sign-in lets a server whose list is not public be listed.
    if (outcome.ok && principalId === this.oauth.owner() && head.lastRefresh === 0) this.ctx.waitUntil(this.refresh(true));
    return outcome;
  }

  /** DELETE /v1/upstreams/:id/grant: the caller's own grant deleted here and revoked at the server where it can be. */
  async deleteGrant(principalId: string): Promise<{ deleted: boolean; revoked: boolean }> {
    return this.oauth.deleteGrant(this.store.head()?.config, principalId);
  }

  /** Whether this upstream is configured with OAuth (its client metadata document is served only then). */
  usesOAuth(): boolean {
    return this.store.head()?.config.auth !== undefined;
  }

  private signInNeeded(id: string): UpstreamCallOutcome {
    return { ok: false, error: `${id} acts as each user's own account, and you have not signed in to it (or your sign-in was revoked or expired)`, signIn: { upstream: id } };
  }

  private async ownerAccessToken(config: UpstreamConfig): Promise<string | undefined> {
    const owner = this.oauth.owner();
    if (owner === undefined || owner === "") return undefined;
    return this.oauth.accessToken(config, owner).catch(() => undefined);
  }

  /** Rows and head values this instance has written since it started: what a refresh cost (the tests and bench read it). */
  storageWrites(): { rows: number; heads: number } {
    return { ...this.store.written };
  }

  /** refreshSeconds, and a list_changed heard during a call. */
  override async alarm(): Promise<void> {
    await this.refresh(false);
  }

  /**
   * The alarm for a list_changed: at once, unless the last list (or failed list) was under listChangedGapMs ago. A
   * server that sends a storm of them gets one list per gap, not one list after another for as long as it keeps on.
   */
  private listSoon(): void {
    const state = this.store.head();
    const last = state ? Math.max(state.lastRefresh, state.health.lastErrorAt) : 0;
    void this.ctx.storage.setAlarm(Math.max(Date.now(), last + UPSTREAM_LIMITS.listChangedGapMs));
  }

  /** Writes the health only when it changes: a healthy server's calls cost no storage write. */
  private noteHealth(update: (health: UpstreamHealth) => UpstreamHealth): void {
    const current = this.store.head();
    if (!current) return;
    const health = update(current.health);
    if (JSON.stringify(health) !== JSON.stringify(current.health)) this.store.putHead({ ...current, health });
  }

  private schedule(config: UpstreamConfig): void {
    if (config.refreshSeconds !== undefined) void this.ctx.storage.setAlarm(Date.now() + config.refreshSeconds * 1000);
  }

  private async openConnection(state: UpstreamHead, maxResponseBytes: number, onToolsChanged?: () => void, probeFirst = false, accessToken?: string): Promise<UpstreamConnection> {
    const { config } = state;
    const headers = secretHeaderValues(config.headers, { ...this.env });
    if (accessToken !== undefined) headers["Authorization"] = `Bearer ${accessToken}`;
    return connectUpstream({
      url: config.url,
      maxResponseBytes,
      headers,
      ...(config.auth ? { oauth: true } : {}),
      timeoutMs: config.timeoutMs,
      ...(state.transport ? { prefer: state.transport } : {}),
      probeFirst,
      ...(onToolsChanged ? { onToolsChanged } : {}),
    });
  }

  /** The accepted tools as definitions, written as the whole of the upstream's context. */
  private async register(next: UpstreamState): Promise<UpstreamAnswer<UpstreamDetail>> {
    const { config } = next;
    const definitions: ToolDefinition[] = [];
    // Every refusal is listed: what the list left out, then what registering leaves out now (computed afresh each time).
    const rejected = [...next.listRejected];
    const names = new Set<string>();
    for (const tool of next.accepted) {
      try {
        const definition = definitionFromMcpTool(tool, {
          prefix: config.prefix,
          executor: { type: "mcp", upstream: config.id, tool: tool.name },
          ...(config.groups ? { groups: config.groups } : {}),
          ...this.guardOf(config, tool),
        });
        if (names.has(definition.name)) {
          rejected.push({ name: tool.name, reason: `its catalog name ${definition.name} is another tool's` });
          continue;
        }
        names.add(definition.name);
        definitions.push(definition);
      } catch (error) {
        rejected.push({ name: tool.name, reason: errorText(error) });
      }
    }
    const outcome = await registryStub(this.env).replaceContext(upstreamContext(config.id), definitions, next.maxTools, this.env.DEMO_CATALOG === "true");
    if (!outcome.ok) return { ok: false, code: outcome.code, message: outcome.message };
    for (const name of outcome.taken) rejected.push({ name, reason: "another context already registers a tool of this name" });
    const taken = new Set(outcome.taken);
    const registeredNames = new Set(definitions.map((definition) => definition.name).filter((name) => !taken.has(name)));
    // Only what reached the registry counts as accepted (callTool runs nothing else).
    const registeredUpstreamNames = new Set(
      definitions.filter((definition) => registeredNames.has(definition.name)).map((definition) => definition.originalName ?? definition.name),
    );
    const saved: UpstreamState = { ...next, accepted: next.accepted.filter((tool) => registeredUpstreamNames.has(tool.name)), rejected };
    this.save(saved);
    return { ok: true, value: this.describe(saved), registry: { epoch: outcome.epoch, version: outcome.version } };
  }

  /** The tool's guard: restricted unless the owner says public; its annotations raise it, never lower it. */
  private guardOf(config: UpstreamConfig, tool: McpTool): UpstreamToolGuard {
    const own = config.tools && Object.hasOwn(config.tools, tool.name) ? config.tools[tool.name] : undefined;
    return upstreamToolGuard(tool.annotations, config, own);
  }

  private summarize(state: UpstreamHead, counts: { accepted: number; quarantined: number; rejected: number }): UpstreamSummary {
    const { config, health } = state;
    const now = Date.now();
    const status = isSkipped(health, now) ? "skipped" : health.failures > 0 ? "failing" : state.lastRefresh === 0 ? "pending" : "ok";
    return {
      id: config.id,
      url: config.url,
      prefix: config.prefix,
      status,
      tools: counts.accepted,
      quarantined: counts.quarantined,
      rejected: counts.rejected,
      transport: state.transport,
      lastRefresh: iso(state.lastRefresh),
      lastError: health.lastError,
      lastErrorAt: iso(health.lastErrorAt),
      consecutiveFailures: health.failures,
      skippedUntil: isSkipped(health, now) ? iso(health.skippedUntil) : null,
      refreshSeconds: config.refreshSeconds ?? null,
      newTools: config.newTools,
    };
  }

  /** The stored state described, with one page of its tools (every caller saved what it describes). */
  private describe(head: UpstreamHead, pages: DetailPages = {}): UpstreamDetail {
    const { config } = head;
    const page = this.store.acceptedPage(pages.tools?.start, pages.tools?.limit ?? TOOL_PAGE.defaultLimit);
    const held = this.store.quarantinePage(pages.quarantine?.start, pages.quarantine?.limit ?? QUARANTINE_PAGE.defaultLimit);
    const lastHeld = held.held.at(-1);
    const last = page.tools.at(-1);
    return {
      ...this.summarize(head, this.store.counts()),
      config,
      toolNames: page.tools.map(({ tool }) => {
        const guard = this.guardOf(config, tool);
        return {
          name: prefixedToolName(config.prefix, tool.name),
          upstreamName: tool.name,
          annotations: tool.annotations ?? {},
          visibility: guard.visibility,
          risk: guard.risk,
          confirm: guard.confirm ?? "off",
        };
      }),
      ...(page.more && last ? { nextCursor: encodeToolCursor({ position: last.position, name: last.tool.name }) } : {}),
      quarantine: held.held.map(({ tool }) => ({ ...tool, digest: tool.hash })),
      ...(held.more && lastHeld ? { quarantineNextCursor: encodeToolCursor({ position: lastHeld.position, name: lastHeld.tool.name }) } : {}),
      rejectedTools: this.store.rejectedTools(),
    };
  }
}
