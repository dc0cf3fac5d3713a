// toolgate/client: a dependency-free client of the toolgate gateway (docs/client.md).
export { createToolgate, ToolgateError } from "./client.js";
export type { CallOptions, FetchLike, Toolgate, ToolgateOptions } from "./client.js";
export { runTurn } from "./runTurn.js";
export type {
  AnthropicBlock,
  AnthropicMessage,
  AnthropicTurn,
  ChatMessage,
  ChatToolCall,
  ChatTurn,
  HeldCall,
  ModelRequest,
  ResponsesFunctionCall,
  ResponsesItem,
  ResponsesTurn,
  ToolCallRecord,
  TurnOptions,
  TurnResult,
} from "./runTurn.js";
export type * from "./types.js";
export { chatCompletions } from "./models.js";
export type { ChatCompletionsOptions } from "./models.js";
