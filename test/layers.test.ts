/// <reference types="vite/client" />
// The layers of src/ and which may import which (docs/DESIGN.md, "Layers"), checked on the sources themselves: every
// import of every file under src/ and of the client package's packages/client/src/ (Vite hands them over as text),
// resolved and compared with the table below.
import { describe, expect, it } from "vitest";

const LAYERS = ["core", "catalog", "executors", "durable", "isolate", "http", "mcp", "playground", "client", "index"] as const;
type Layer = (typeof LAYERS)[number];

/** What each layer may import besides packages (its own files always). */
const ALLOWED: Readonly<Record<Layer, readonly Layer[]>> = {
  // Plain TypeScript for workerd, Node and browsers: nothing above it, no platform module.
  core: [],
  catalog: ["core"],
  executors: ["core"],
  // Storage and RPC: never the HTTP layer, nor the per-isolate state (callers pass what an object needs).
  durable: ["core", "catalog"],
  isolate: ["core", "catalog", "executors", "durable"],
  http: ["core", "catalog", "executors", "durable", "isolate"],
  // The second face (MCP): like http, and it may use http's caller stage; http never imports it.
  mcp: ["core", "catalog", "executors", "durable", "isolate", "http"],
  // The page, bundled for the browser: its own files and the core (plain TypeScript), nothing of the Worker.
  playground: ["core"],
  // @toolgate/client (packages/client/src, published): nothing of the gateway, not even types; its API types are held
  // to the core's by test/client/contract.test.ts.
  client: [],
  // The Worker's entry: the router, the Durable Object classes, the settings.
  index: ["http", "mcp", "durable", "isolate"],
};

/** Platform modules (`cloudflare:workers`, `node:fs`) are the shell's: these layers may not import them. */
const NO_PLATFORM: readonly Layer[] = ["core", "catalog", "playground", "client"];

const CLIENT_ROOT = "/packages/client/src/";

const sources: Record<string, string> = {
  ...import.meta.glob("/src/**/*.ts", { query: "?raw", import: "default", eager: true }),
  ...import.meta.glob("/packages/client/src/**/*.ts", { query: "?raw", import: "default", eager: true }),
};

function layerOf(path: string): Layer | undefined {
  if (path === "/src/index.ts") return "index";
  if (path.startsWith(CLIENT_ROOT)) return "client";
  const top = path.split("/")[2];
  return LAYERS.find((layer) => layer === top && layer !== "index");
}

/** The module specifiers a source imports or re-exports (static, side-effect and dynamic), comments left out. */
function importsOf(source: string): { specifier: string }[] {
  const code = source.replaceAll(/\/\*[\s\S]*?\*\//g, "").replaceAll(/^\s*\/\/.*$/gm, "");
  const found: { specifier: string }[] = [];
  for (const pattern of [
    /\b(?:import|export)\s([^;'"]*?)\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*()["']([^"']+)["']/g,
    /\bimport\s*\(\s*()["']([^"']+)["']\s*\)/g,
  ]) {
    for (const match of code.matchAll(pattern)) {
      if (match[2] !== undefined) found.push({ specifier: match[2] });
    }
  }
  return found;
}

/** Every import of every source that the table does not allow, as `file → specifier (why)`. */
function violations(files: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  for (const [path, source] of Object.entries(files)) {
    const layer = layerOf(path);
    if (layer === undefined) {
      problems.push(`${path}: in no known layer (add its folder to the table in test/layers.test.ts and docs/DESIGN.md)`);
      continue;
    }
    for (const { specifier } of importsOf(source)) {
      if (!specifier.startsWith(".")) {
        if (specifier.includes(":") && NO_PLATFORM.includes(layer)) problems.push(`${path} → ${specifier} (a platform module in ${layer})`);
        continue;
      }
      const target = new URL(specifier, `file://${path}`).pathname;
      const targetLayer = target.startsWith("/src/") || target.startsWith(CLIENT_ROOT) ? layerOf(target) : undefined;
      if (targetLayer === layer) continue;
      if (targetLayer === undefined || !ALLOWED[layer].includes(targetLayer)) {
        problems.push(`${path} → ${specifier} (${layer} may not import ${targetLayer ?? target})`);
      }
    }
  }
  return problems;
}

describe("layers", () => {
  it("reads every source under src/ and packages/client/src/", () => {
    expect(Object.keys(sources).length).toBeGreaterThan(50);
    expect(Object.keys(sources)).toContain("/src/core/tools/toolRegistry.ts");
    expect(Object.keys(sources)).toContain("/packages/client/src/runTurn.ts");
  });

  it("every import goes where the table allows", () => {
    expect(violations(sources)).toEqual([]);
  });

  it("catches a planted import in each direction the table forbids", () => {
    const planted = {
      "/src/core/a.ts": 'import { x } from "../http/errors.ts";\nimport { y } from "./b.ts";',
      "/src/core/c.ts": 'import { DurableObject } from "cloudflare:workers";',
      "/src/executors/d.ts": 'import type {\n  Call,\n} from "../http/stage.ts";',
      "/src/durable/e.ts": 'export { loadSettings } from "../isolate/settings.ts";',
      "/src/durable/f.ts": 'const m = await import("../http/router.ts");',
      "/src/isolate/g.ts": 'import "../http/routes/misc.ts";',
      "/src/playground/h.ts": 'import { ROUTES } from "../http/router.ts";',
      "/src/core/i.ts": '// import { x } from "../http/errors.ts";\nimport { ok } from "./ok.ts";',
      "/packages/client/src/j.ts": 'import type { Toolgate } from "./client.ts";\nimport { tool } from "ai";',
      "/packages/client/src/k.ts": 'import type { ToolResult } from "../../../src/core/types.ts";',
      "/packages/client/src/l.ts": 'import { isRecord } from "../../../src/core/records.ts";',
      "/packages/client/src/m.ts": 'import { readFileSync } from "node:fs";',
    };
    expect(violations(planted)).toEqual([
      "/src/core/a.ts → ../http/errors.ts (core may not import http)",
      "/src/core/c.ts → cloudflare:workers (a platform module in core)",
      "/src/executors/d.ts → ../http/stage.ts (executors may not import http)",
      "/src/durable/e.ts → ../isolate/settings.ts (durable may not import isolate)",
      "/src/durable/f.ts → ../http/router.ts (durable may not import http)",
      "/src/isolate/g.ts → ../http/routes/misc.ts (isolate may not import http)",
      "/src/playground/h.ts → ../http/router.ts (playground may not import http)",
      "/packages/client/src/k.ts → ../../../src/core/types.ts (client may not import core)",
      "/packages/client/src/l.ts → ../../../src/core/records.ts (client may not import core)",
      "/packages/client/src/m.ts → node:fs (a platform module in client)",
    ]);
  });
});
