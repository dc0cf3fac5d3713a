// The built-in demo catalog that `npm start` serves.
import type { ToolDefinition } from "../core/types.ts";

export const DEMO_CONTEXT = "builtin:demo";

export function demoCatalog(): ToolDefinition[] {
  throw new Error("not implemented");
}
