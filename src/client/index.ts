// toolgate/client: a dependency-free client of the toolgate gateway (docs/client.md).
export { createToolgate, ToolgateError } from "./client.ts";
export type { CallOptions, FetchLike, Toolgate, ToolgateOptions } from "./client.ts";
export { runTurn } from "./runTurn.ts";
export type {
  AnthropicBlock,
  AnthropicMessage,
  AnthropicTurn,
  ChatMessage,
  ChatToolCall,
  ChatTurn,
  ModelRequest,
  ResponsesFunctionCall,
  ResponsesItem,
  ResponsesTurn,
  ToolCallRecord,
  TurnOptions,
  TurnResult,
} from "./runTurn.ts";
export type * from "./types.ts";
export { chatCompletions } from "./models.ts";
export type { ChatCompletionsOptions } from "./models.ts";
