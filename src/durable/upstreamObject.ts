// One upstream MCP server (PUT /v1/upstreams/:id), one object per id: its configuration, the pins of its tools, the
// quarantine, its health (failures, skipped-until) and an alarm for `refreshSeconds`. A refresh lists the server's
// tools and makes them the whole of the registry context `upstream:<id>` in one write (one version step); tools/call
// runs here too, so that a tool put in quarantine or a server being skipped takes effect at once on every isolate.
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
import type { AcceptChoice, Pin, QuarantinedTool } from "../core/upstream/pins.ts";
import type { UpstreamCallOutcome } from "../core/upstream/result.ts";
import { isRecord } from "../core/records.ts";
import { secretHeaderValues } from "../core/boundary/secrets.ts";
import { prefixedToolName } from "../core/tools/toolNames.ts";
import { utf8Length } from "../core/tools/definition.ts";
import type { DeclaredConfirm, Risk, ToolDefinition, Visibility } from "../core/types.ts";
import type { RegistryVersion } from "./registryObject.ts";
import { registryStub } from "./stubs.ts";
import { callUpstreamTool, connectUpstream, isServerAnswer, isServerFailure, listAllTools } from "./upstreamClient.ts";
import type { UpstreamConnection, UpstreamTransport } from "./upstreamClient.ts";

/** A listed tool toolgate could not take, and why. */
export interface RejectedTool {
  name: string;
  reason: string;
}

interface UpstreamState {
  config: UpstreamConfig;
  /** The registry's tool cap, as of the last configuration (an alarm has no request to read it from). */
  maxTools: number;
  pins: Record<string, Pin>;
  quarantine: Record<string, QuarantinedTool>;
  /** The tools registered now (pinned and unchanged, or accepted). */
  accepted: McpTool[];
  /** What the last list left out (read when it came); `rejected` adds what registering it left out. */
  listRejected?: RejectedTool[];
  rejected: RejectedTool[];
  health: UpstreamHealth;
  /** Epoch milliseconds of the last successful list; 0 before the first. */
  lastRefresh: number;
  transport: UpstreamTransport | null;
}

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

/** GET /v1/upstreams/:id: the summary, the configuration, every tool's catalog name and what is held or refused. */
export interface UpstreamDetail extends UpstreamSummary {
  config: UpstreamConfig;
  /** Each registered tool: its catalog name, the server's name, its annotations and the guard they mapped to. */
  toolNames: { name: string; upstreamName: string; annotations: McpToolAnnotations; visibility: Visibility; risk: Risk; confirm: DeclaredConfirm | "off" }[];
  /** Each held tool with `digest`, what POST accept names it by. */
  quarantine: (QuarantinedTool & { digest: string })[];
  rejectedTools: RejectedTool[];
}

export type UpstreamAnswer<T> = { ok: true; value: T; registry?: RegistryVersion } | { ok: false; code: "not_found" | "too_many_tools" | "not_in_quarantine" | "quarantine_changed"; message: string };

const STATE_KEY = "state";

function iso(epochMs: number): string | null {
  return epochMs > 0 ? new Date(epochMs).toISOString() : null;
}

function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 0 ? message : "unknown error";
}

/** What the stored state may take (UTF-16 units of its JSON: at least its bytes' worth of room under the 2 MB cap). */
const STATE_BUDGET = 1_500_000;

function withinStorageBudget(state: UpstreamState): UpstreamState {
  if (JSON.stringify(state).length <= STATE_BUDGET) return state;
  const current = new Set([...state.accepted.map((tool) => tool.name), ...Object.keys(state.quarantine)]);
  const pins = Object.fromEntries(Object.entries(state.pins).filter(([name]) => current.has(name)));
  return { ...state, pins };
}

export class UpstreamObject extends DurableObject<Env> {
  private state(): UpstreamState | undefined {
    return this.ctx.storage.kv.get<UpstreamState>(STATE_KEY);
  }

  /**
   * Stores the state in one value, which a Durable Object caps at 2 MB. The listed tools are bounded
   * (toolBytesPerUpstream); what can still pile up are the pins of tools the server no longer lists: past the budget
   * they go (such a tool coming back is then a new tool, held by the default `newTools: "quarantine"`).
   */
  private save(state: UpstreamState): void {
    this.ctx.storage.kv.put(STATE_KEY, withinStorageBudget(state));
  }

  /** Stores the configuration and lists the server's tools; the configuration stays even when the list fails. */
  async configure(config: UpstreamConfig, maxTools: number): Promise<UpstreamAnswer<UpstreamDetail> & { created: boolean }> {
    const previous = this.state();
    this.save({
      config,
      maxTools,
      pins: previous?.pins ?? {},
      quarantine: previous?.quarantine ?? {},
      accepted: previous?.accepted ?? [],
      listRejected: previous?.listRejected ?? [],
      rejected: previous?.rejected ?? [],
      // A new URL or new headers: the old failures say nothing about them.
      health: previous && previous.config.url === config.url ? previous.health : HEALTHY,
      lastRefresh: previous?.lastRefresh ?? 0,
      transport: previous && previous.config.url === config.url ? previous.transport : null,
    });
    const answer = await this.refresh(true);
    return { ...answer, created: previous === undefined };
  }

  summary(): UpstreamSummary | null {
    const state = this.state();
    return state ? this.summarize(state) : null;
  }

  detail(): UpstreamDetail | null {
    const state = this.state();
    return state ? this.describe(state) : null;
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
      const connection = await this.openConnection(state, UPSTREAM_LIMITS.listResponseBytes, undefined, true);
      transport = connection.transport;
      try {
        listed = await listAllTools(connection, {
          maxPages: UPSTREAM_LIMITS.listPages,
          maxTools: UPSTREAM_LIMITS.toolsPerUpstream,
          timeoutMs: state.config.timeoutMs,
        });
      } finally {
        await connection.close().catch(() => undefined);
      }
    } catch (error) {
      const latest = this.state();
      if (!latest) return { ok: false, code: "not_found", message: "no such upstream" };
      const failed = { ...latest, health: afterFailure(latest.health, `tools/list: ${errorText(error)}`, now) };
      this.save(failed);
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
  async remove(id: string): Promise<{ removed: boolean; tools: number } & RegistryVersion> {
    const state = this.state();
    const registry = registryStub(this.env);
    const disposed = await registry.disposeContext(upstreamContext(id));
    await registry.removeUpstream(id);
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    return { removed: state !== undefined, tools: disposed.removed, epoch: disposed.epoch, version: disposed.version };
  }

  /**
   * tools/call on the upstream, for the `mcp` executor, on a connection of its own, closed when the call is done: no
   * call shares a connection (or the server's MCP session) with another, so no caller can cut off another's call.
   * Refused while the tool is not registered (quarantined, gone) or the server is skipped. Only the server's own
   * failures count toward the skip (isServerFailure); a call cut off after it was sent is never sent again (it may
   * have run), and its error says so.
   */
  async callTool(tool: string, args: Record<string, unknown>, maxResultBytes: number): Promise<UpstreamCallOutcome> {
    const state = this.state();
    if (!state) return { ok: false, error: "this upstream MCP server was removed" };
    const { id } = state.config;
    if (Object.hasOwn(state.quarantine, tool)) {
      return { ok: false, error: `"${tool}" of ${id} changed upstream and is held until the owner accepts it` };
    }
    if (!state.accepted.some((accepted) => accepted.name === tool)) return { ok: false, error: `${id} has no tool "${tool}"` };
    const now = Date.now();
    if (isSkipped(state.health, now)) {
      return {
        ok: false,
        error: `the MCP server ${id} is skipped until ${iso(state.health.skippedUntil) ?? "later"} after ${state.health.failures} failures in a row (last: ${state.health.lastError ?? "unknown"})`,
      };
    }
    let connection: UpstreamConnection;
    try {
      // A list_changed heard on this connection: list again soon (the alarm), not in a call's time.
      connection = await this.openConnection(state, maxResultBytes, () => this.listSoon());
    } catch (error) {
      if (isServerFailure(error)) this.noteHealth((health) => afterFailure(health, `tools/call ${tool}: ${errorText(error)}`, now));
      // The text may carry the server's own words (an HTTP body, a JSON-RPC error message): the executor wraps it.
      return { ok: false, error: `${id}: ${errorText(error)} (the call was not sent)`, fromUpstream: true };
    }
    try {
      const result = await callUpstreamTool(connection, tool, args, state.config.timeoutMs);
      this.noteHealth(afterSuccess);
      return { ok: true, result };
    } catch (error) {
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

  /** refreshSeconds, and a list_changed heard during a call. */
  override async alarm(): Promise<void> {
    await this.refresh(false);
  }

  /**
   * The alarm for a list_changed: at once, unless the last list (or failed list) was under listChangedGapMs ago. A
   * server that sends a storm of them gets one list per gap, not one list after another for as long as it keeps on.
   */
  private listSoon(): void {
    const state = this.state();
    const last = state ? Math.max(state.lastRefresh, state.health.lastErrorAt) : 0;
    void this.ctx.storage.setAlarm(Math.max(Date.now(), last + UPSTREAM_LIMITS.listChangedGapMs));
  }

  /** Writes the health only when it changes: a healthy server's calls cost no storage write. */
  private noteHealth(update: (health: UpstreamHealth) => UpstreamHealth): void {
    const current = this.state();
    if (!current) return;
    const health = update(current.health);
    if (JSON.stringify(health) !== JSON.stringify(current.health)) this.save({ ...current, health });
  }

  private schedule(config: UpstreamConfig): void {
    if (config.refreshSeconds !== undefined) void this.ctx.storage.setAlarm(Date.now() + config.refreshSeconds * 1000);
  }

  private async openConnection(state: UpstreamState, maxResponseBytes: number, onToolsChanged?: () => void, probeFirst = false): Promise<UpstreamConnection> {
    const { config } = state;
    return connectUpstream({
      url: config.url,
      maxResponseBytes,
      headers: secretHeaderValues(config.headers, { ...this.env }),
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
    const rejected = [...(next.listRejected ?? [])];
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
    const registeredNames = new Set(definitions.map((definition) => definition.name).filter((name) => !outcome.taken.includes(name)));
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

  private summarize(state: UpstreamState): UpstreamSummary {
    const { config, health } = state;
    const now = Date.now();
    const status = isSkipped(health, now) ? "skipped" : health.failures > 0 ? "failing" : state.lastRefresh === 0 ? "pending" : "ok";
    return {
      id: config.id,
      url: config.url,
      prefix: config.prefix,
      status,
      tools: state.accepted.length,
      quarantined: Object.keys(state.quarantine).length,
      rejected: state.rejected.length,
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

  private describe(state: UpstreamState): UpstreamDetail {
    const { config } = state;
    return {
      ...this.summarize(state),
      config,
      toolNames: state.accepted.map((tool) => {
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
      quarantine: Object.values(state.quarantine).map((held) => ({ ...held, digest: held.hash })),
      rejectedTools: state.rejected,
    };
  }
}
