// A tool call that needs the caller to sign in to an upstream first: thrown by the `mcp` executor, turned by the
// registry into a tool error that carries the link (ToolResult.signIn), which MCP also offers as a URL elicitation.
import type { SignInRequest } from "../types.ts";

export class SignInRequiredError extends Error {
  readonly signIn: SignInRequest;
  constructor(message: string, signIn: SignInRequest) {
    super(message);
    this.signIn = signIn;
  }
}
