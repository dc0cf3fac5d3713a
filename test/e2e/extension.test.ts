// The browser extension example (examples/browser-extension/) in Debian's Chromium: built with esbuild, loaded
// unpacked into a persistent headless profile, pointed at `wrangler dev` and at a scripted model (a Node HTTP server
// on loopback that plays the model's side in OpenAI Chat Completions shape). The conversation searches, runs the tool
// it found, then asks to send an email, which the popup's dialog approves. Saves a screenshot of the approval dialog over the conversation (docs/extension.png with UPDATE_SCREENSHOTS=1).
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildExtension, EXTENSION_DIR } from "../../examples/browser-extension/build.ts";
import { devToken, screenshotPath, startDevServer } from "./devServer.ts";
import type { DevServer } from "./devServer.ts";

const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOT = screenshotPath("extension.png");
const FINAL = "17 * 3 + sqrt(81) = 60. I emailed Bob the result.";

interface ChatRequest {
  messages: { role: string; content?: unknown; tool_call_id?: string }[];
  tools: { function?: { name?: string } }[];
}

function isChatRequest(value: unknown): value is ChatRequest {
  return typeof value === "object" && value !== null && "messages" in value && Array.isArray(value.messages) && "tools" in value && Array.isArray(value.tools);
}

/** What the model was sent, per request. */
const seen: ChatRequest[] = [];

/** The scripted model: its move depends on how many tool results the conversation holds. */
function reply(request: ChatRequest): Record<string, unknown> {
  const results = request.messages.filter((message) => message.role === "tool").length;
  const call = (name: string, args: Record<string, unknown>): Record<string, unknown> => ({
    role: "assistant",
    content: null,
    tool_calls: [{ id: `call_${results}`, type: "function", function: { name, arguments: JSON.stringify(args) } }],
  });
  if (results === 0) return call("search_tools", { query: "calculate" });
  if (results === 1) return call("calculate", { expression: "17 * 3 + sqrt(81)" });
  if (results === 2) return call("send_email", { to: ["bob@example.com"], subject: "The result", body: "17 * 3 + sqrt(81) = 60" });
  return { role: "assistant", content: FINAL };
}

function startModel(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res.writeHead(404).end();
        return;
      }
      const parsed: unknown = JSON.parse(body);
      if (!isChatRequest(parsed)) {
        res.writeHead(400).end();
        return;
      }
      const request = parsed;
      seen.push(request);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ id: "chatcmpl-e2e", object: "chat.completion", choices: [{ index: 0, message: reply(request), finish_reason: "stop" }] }));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      resolve({ server, url: `http://127.0.0.1:${port}/v1` });
    });
  });
}

let gateway: DevServer | undefined;
let model: { server: Server; url: string } | undefined;
let context: BrowserContext | undefined;
let profile = "";
let extensionId = "";
const errors: string[] = [];

function watch(page: Page): Page {
  page.on("pageerror", (error) => errors.push(error.message));
  return page;
}

beforeAll(async () => {
  await buildExtension();
  [gateway, model] = await Promise.all([startDevServer(), startModel()]);
  profile = mkdtempSync(join(tmpdir(), "toolgate-extension-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 420, height: 720 },
    args: [
      "--no-sandbox",
      "--disable-background-networking",
      "--disable-gpu",
      "--disable-component-update",
      "--no-first-run",
      "--disable-sync",
      `--disable-extensions-except=${EXTENSION_DIR}`,
      `--load-extension=${EXTENSION_DIR}`,
    ],
  });
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker", { timeout: 30_000 }));
  extensionId = new URL(worker.url()).host;
});

afterAll(async () => {
  await context?.close();
  await gateway?.stop();
  await new Promise((resolve) => (model ? model.server.close(resolve) : resolve(undefined)));
  if (profile) rmSync(profile, { recursive: true, force: true });
});

describe("the browser extension example", () => {
  it("keeps the settings in chrome.storage", async () => {
    if (!context || !gateway || !model) throw new Error("setup failed");
    const page = watch(await context.newPage());
    await page.goto(`chrome-extension://${extensionId}/options.html`);
    await page.getByLabel("Gateway URL").fill(gateway.origin);
    await page.getByLabel("Gateway token").fill(await devToken("extension-e2e"));
    await page.getByLabel(/Model API base URL/).fill(model.url);
    await page.getByLabel("Model", { exact: true }).fill("scripted-model");
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.locator("#status").innerText()).toBe("Saved.");
    await page.reload();
    await expect.poll(() => page.getByLabel("Gateway URL").inputValue()).toBe(gateway.origin);
    await page.close();
  });

  it("searches, runs the found tool, and sends the email once the user approves", async () => {
    if (!context) throw new Error("setup failed");
    const page = watch(await context.newPage());
    await page.goto(`chrome-extension://${extensionId}/popup.html`);
    await page.getByLabel("Message").fill("What is 17 * 3 + sqrt(81)? Email Bob the answer.");
    await page.getByRole("button", { name: "Send" }).click();

    const dialog = page.getByRole("dialog", { name: "Allow this action?" });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.locator("#confirm-tool").innerText()).toBe("send_email");
    expect(await dialog.locator("#confirm-arguments").innerText()).toContain("bob@example.com");
    await page.screenshot({ path: SCREENSHOT });
    await dialog.getByRole("button", { name: "Approve" }).click();

    const log = page.locator("#log li");
    await expect.poll(() => log.last().innerText()).toBe(FINAL);
    const entries = await log.allInnerTexts();
    expect(entries[0]).toContain("What is 17 * 3");
    expect(entries.filter((entry) => entry.startsWith("Tool ")).map((entry) => /^Tool (\w+)/.exec(entry)?.[1])).toEqual(["search_tools", "calculate", "send_email"]);
    expect(entries.find((entry) => entry.includes("calculate:"))).toContain('"result":60');
    expect(entries.find((entry) => entry.includes("send_email"))).toContain("(approved)");

    // The model first saw search_tools alone; the tool it found joined the next turn's list.
    const names = seen.map((request) => request.tools.map((tool) => tool.function?.name));
    expect(names[0]).toEqual(["search_tools"]);
    expect(names[1]).toContain("calculate");
    expect(seen.at(-1)?.messages.filter((message) => message.role === "tool")).toHaveLength(3);

    expect(errors).toEqual([]);
  });
});
