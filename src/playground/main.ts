// The playground: wires the page's controls to the gateway's HTTP API. No framework: a handful of forms and panels.
import { ID_PATTERN } from "../core/ids.ts";
import { isRecord } from "../core/records.ts";
import { describeError, GatewayClient } from "./api.ts";
import type { SearchMode } from "./api.ts";
import { byId, runFor } from "./dom.ts";
import { exampleArguments } from "./exampleArguments.ts";
import { parseToolList, SHAPE_LABELS, viewOf } from "./toolLists.ts";
import type { ToolView } from "./toolLists.ts";
import { renderCatalog } from "./views/catalogView.ts";
import { renderDiscovered } from "./views/discoveredView.ts";
import { focusResult, renderDenied, renderExecuteResult } from "./views/executeView.ts";
import { renderPrepare } from "./views/prepareView.ts";
import { renderSearchResult } from "./views/searchView.ts";

const SEARCH_TOOLS_VIEW: ToolView = {
  name: "search_tools",
  description: "The search layer's own tool.",
  parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
};

/** The catalog in use. `tools` is set for a pasted list (sent with every prepare); the demo lives in the registry. */
interface Catalog {
  label: string;
  views: ToolView[];
  tools?: unknown[];
}

const ui = {
  health: byId("health", HTMLParagraphElement),
  token: byId("token", HTMLInputElement),
  sessionId: byId("session-id", HTMLInputElement),
  groups: byId("groups", HTMLInputElement),
  connectionForm: byId("connection-form", HTMLFormElement),
  applyConnection: byId("apply-connection", HTMLButtonElement),
  newSession: byId("new-session", HTMLButtonElement),
  catalogSection: byId("catalog", HTMLElement),
  loadDemo: byId("load-demo", HTMLButtonElement),
  toolList: byId("tool-list", HTMLTextAreaElement),
  toolFile: byId("tool-file", HTMLInputElement),
  useList: byId("use-list", HTMLButtonElement),
  catalogError: byId("catalog-error", HTMLParagraphElement),
  catalogSummary: byId("catalog-summary", HTMLDivElement),
  prepareForm: byId("prepare-form", HTMLFormElement),
  userMessage: byId("user-message", HTMLInputElement),
  runPrepare: byId("run-prepare", HTMLButtonElement),
  prepareError: byId("prepare-error", HTMLParagraphElement),
  prepareResult: byId("prepare-result", HTMLDivElement),
  searchForm: byId("search-form", HTMLFormElement),
  query: byId("query", HTMLInputElement),
  limit: byId("limit", HTMLInputElement),
  runSearch: byId("run-search", HTMLButtonElement),
  searchError: byId("search-error", HTMLParagraphElement),
  results: {
    substring: byId("results-substring", HTMLDivElement),
    minisearch: byId("results-minisearch", HTMLDivElement),
  } satisfies Record<SearchMode, HTMLDivElement>,
  discovered: byId("discovered", HTMLDivElement),
  executeForm: byId("execute-form", HTMLFormElement),
  toolName: byId("tool-name", HTMLSelectElement),
  toolArgs: byId("tool-args", HTMLTextAreaElement),
  runTool: byId("run-tool", HTMLButtonElement),
  executeError: byId("execute-error", HTMLParagraphElement),
  executeResult: byId("execute-result", HTMLDivElement),
  clearMemory: byId("clear-memory", HTMLButtonElement),
  memoryError: byId("memory-error", HTMLParagraphElement),
  memoryStatus: byId("memory-status", HTMLParagraphElement),
};

const client = new GatewayClient({
  token: () => ui.token.value,
  sessionId: () => ui.sessionId.value.trim(),
  enabledGroups: () => readGroups(ui.groups.value),
});
const MODES: readonly SearchMode[] = ["substring", "minisearch"];
let catalog: Catalog | undefined;
/** The tools of the last prepare answer: the next one is compared with it for the billed estimate. */
let previousPrepare: unknown[] | undefined;
/** The last query per mode, so that "Next page" asks for the same thing further on. */
const lastSearch: Partial<Record<SearchMode, { query: string; limit?: number }>> = {};

/** "web, mail" → ["web", "mail"]; an empty field → undefined (every group the token allows). */
function readGroups(text: string): string[] | undefined {
  const groups = text.split(/[\s,]+/).filter((group) => group !== "");
  return groups.length > 0 ? groups : undefined;
}

function randomSessionId(): string {
  return `play-${crypto.randomUUID().slice(0, 8)}`;
}

function checkSessionField(): void {
  ui.sessionId.setAttribute("aria-invalid", String(!ID_PATTERN.test(ui.sessionId.value.trim())));
}

/** The session's discovered set, read through a prepare without messages (which changes nothing). */
async function refreshDiscovered(): Promise<void> {
  const answer = await client.prepare([], catalog?.tools);
  renderDiscovered(ui.discovered, answer.discovered);
}

function fillToolPicker(views: readonly ToolView[]): void {
  const previous = ui.toolName.value;
  const options = [...views, SEARCH_TOOLS_VIEW].map((view) => new Option(view.name, view.name));
  ui.toolName.replaceChildren(...options);
  if (options.some((option) => option.value === previous)) ui.toolName.value = previous;
  fillExampleArguments();
}

function fillExampleArguments(): void {
  const name = ui.toolName.value;
  const view = [...(catalog?.views ?? []), SEARCH_TOOLS_VIEW].find((candidate) => candidate.name === name);
  const args = view ? exampleArguments(view.parameters) : {};
  ui.toolArgs.value = JSON.stringify(args, null, 2);
  ui.toolArgs.rows = Math.min(12, Math.max(4, ui.toolArgs.value.split("\n").length));
}

async function useCatalog(next: Catalog): Promise<void> {
  const answer = await client.prepare([], next.tools);
  catalog = next;
  const anonymous = ui.token.value.trim() === "" && next.tools === undefined;
  renderCatalog(ui.catalogSummary, next.label, next.views, answer.stats, anonymous);
  renderDiscovered(ui.discovered, answer.discovered);
  fillToolPicker(next.views);
}

async function loadDemo(): Promise<void> {
  const tools = await client.demoTools();
  const views = tools.map(viewOf).filter((view): view is ToolView => view !== undefined);
  await useCatalog({ label: "built-in demo", views });
}

async function usePastedList(): Promise<void> {
  const parsed = parseToolList(ui.toolList.value);
  await useCatalog({ label: `pasted, ${SHAPE_LABELS[parsed.shape]} shape`, views: parsed.views, tools: parsed.tools });
}

function catalogTask(button: HTMLButtonElement, task: () => Promise<void>): Promise<void> {
  return runForSection(button, ui.catalogSection, ui.catalogError, task);
}

function runForSection(button: HTMLButtonElement, region: HTMLElement, alert: HTMLElement, task: () => Promise<void>): Promise<void> {
  return runFor(button, region, alert, describeError, task);
}

async function search(mode: SearchMode, query: string, limit: number | undefined, offset: number | undefined): Promise<void> {
  const answer = await client.search({ query, mode, ...(limit === undefined ? {} : { limit }), ...(offset === undefined ? {} : { offset }) });
  lastSearch[mode] = limit === undefined ? { query } : { query, limit };
  renderSearchResult(ui.results[mode], mode, answer, (nextOffset) => {
    void nextPage(mode, nextOffset);
  });
}

async function nextPage(mode: SearchMode, offset: number): Promise<void> {
  const last = lastSearch[mode];
  if (!last) return;
  const region = ui.results[mode];
  region.setAttribute("aria-busy", "true");
  ui.searchError.textContent = "";
  try {
    await search(mode, last.query, last.limit, offset);
    await refreshDiscovered();
    const first = region.querySelector<HTMLElement>(".next-page") ?? region.querySelector<HTMLElement>("summary");
    first?.focus();
  } catch (error) {
    ui.searchError.textContent = describeError(error);
  } finally {
    region.removeAttribute("aria-busy");
  }
}

function readLimit(): number | undefined {
  const text = ui.limit.value.trim();
  if (text === "") return undefined;
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 0) throw new Error("The limit must be a whole number, 0 or more (0 = no limit).");
  return limit;
}

function readArguments(): Record<string, unknown> {
  let args: unknown;
  try {
    args = JSON.parse(ui.toolArgs.value.trim() === "" ? "{}" : ui.toolArgs.value);
  } catch (error) {
    throw new Error(`The arguments are not valid JSON: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  if (!isRecord(args)) throw new Error("The arguments must be a JSON object.");
  return args;
}

async function runTool(name: string, args: Record<string, unknown>): Promise<void> {
  const answer = await client.execute(name, args);
  renderExecuteResult(ui.executeResult, name, answer, {
    approve: () => void answerConfirmation(name, args, answer.confirmation?.id, true),
    deny: () => void answerConfirmation(name, args, answer.confirmation?.id, false),
  });
}

/** Approve: grant, then run the same call again (the model would retry). Deny: the call does not run. */
async function answerConfirmation(name: string, args: Record<string, unknown>, id: string | undefined, approve: boolean): Promise<void> {
  if (id === undefined) return;
  await runForSection(ui.runTool, ui.executeResult, ui.executeError, async () => {
    await client.answerConfirmation(id, approve);
    if (approve) await runTool(name, args);
    else renderDenied(ui.executeResult, name);
  });
  focusResult(ui.executeResult);
}

// --- wiring -------------------------------------------------------------------------------------------------------

ui.sessionId.value = randomSessionId();
// `npm start` prints a link carrying a development token in the fragment (never sent to any server); take it once
// and drop it from the address bar.
const fragmentToken = new URLSearchParams(location.hash.slice(1)).get("token");
if (fragmentToken) {
  ui.token.value = fragmentToken;
  history.replaceState(null, "", location.pathname + location.search);
}
ui.connectionForm.addEventListener("submit", (event) => {
  event.preventDefault();
  // The caller changed: what it may see changed too.
  void catalogTask(ui.applyConnection, () => (catalog?.tools === undefined ? loadDemo() : useCatalog(catalog)));
});
ui.sessionId.addEventListener("input", checkSessionField);
ui.newSession.addEventListener("click", () => {
  ui.sessionId.value = randomSessionId();
  checkSessionField();
  void runForSection(ui.newSession, ui.catalogSection, ui.catalogError, refreshDiscovered);
});

ui.loadDemo.addEventListener("click", () => void catalogTask(ui.loadDemo, loadDemo));
ui.useList.addEventListener("click", () => void catalogTask(ui.useList, usePastedList));
ui.toolFile.addEventListener("change", () => {
  const file = ui.toolFile.files?.[0];
  if (!file) return;
  void catalogTask(ui.useList, async () => {
    ui.toolList.value = await file.text();
    await usePastedList();
  });
});

ui.prepareForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = ui.userMessage.value.trim();
  const messages = text === "" ? [] : [{ role: "user", content: text }];
  void runForSection(ui.runPrepare, ui.prepareResult, ui.prepareError, async () => {
    const answer = await client.prepare(messages, catalog?.tools);
    renderPrepare(ui.prepareResult, answer, previousPrepare);
    previousPrepare = answer.tools;
    renderDiscovered(ui.discovered, answer.discovered);
  });
});

ui.searchForm.addEventListener("submit", (event) => {
  event.preventDefault();
  void runForSection(ui.runSearch, ui.searchForm, ui.searchError, async () => {
    const limit = readLimit();
    // One after the other, so that the discovered set's order is the same on every run.
    for (const mode of MODES) await search(mode, ui.query.value, limit, undefined);
    await refreshDiscovered();
  });
});

ui.toolName.addEventListener("change", fillExampleArguments);
ui.executeForm.addEventListener("submit", (event) => {
  event.preventDefault();
  void runForSection(ui.runTool, ui.executeResult, ui.executeError, async () => {
    await runTool(ui.toolName.value, readArguments());
  });
});

ui.clearMemory.addEventListener("click", () => {
  ui.memoryStatus.textContent = "";
  void runForSection(ui.clearMemory, ui.discovered, ui.memoryError, async () => {
    await client.clearSessionMemory();
    await refreshDiscovered();
    ui.memoryStatus.textContent = `Cleared the memory of session ${ui.sessionId.value.trim()}.`;
  });
});

void (async () => {
  try {
    const version = await client.health();
    ui.health.textContent = `Gateway is up${version ? ` (version ${version})` : ""}.`;
    ui.health.dataset["state"] = "up";
  } catch (error) {
    ui.health.textContent = `Gateway not reachable: ${describeError(error)}`;
    ui.health.dataset["state"] = "down";
    return;
  }
  // The demo right away, so that every panel has something to work on; an auth error here says what to do.
  await catalogTask(ui.loadDemo, loadDemo);
})();
