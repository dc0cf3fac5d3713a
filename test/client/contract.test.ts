// The client package's API types against the gateway's own (packages/client/src/types.ts is written out so that the
// package ships nothing of the gateway). These assertions are checked by `npm run typecheck`: a change of the API's
// types on either side fails the gateway's build until the other side follows.
import { describe, expectTypeOf, it } from "vitest";
import type {
  ConfirmAnswer,
  ConfirmationRequest,
  ExecuteAnswer,
  JsonValue,
  PrepareAnswer,
  SearchAnswer,
  ToolDefinition,
  ToolShape,
} from "@toolgate/client";
import type { PrepareOutput } from "../../src/core/turn/prepare.ts";
import type { SearchToolsResult } from "../../src/core/turn/searchTools.ts";
import type { ToolShape as CoreToolShape } from "../../src/core/tools/shapes.ts";
import type * as core from "../../src/core/types.ts";

describe("the client's API types", () => {
  it("are the gateway's types", () => {
    expectTypeOf<ExecuteAnswer>().toEqualTypeOf<core.ToolResult>();
    expectTypeOf<ConfirmationRequest>().toEqualTypeOf<core.ConfirmationRequest>();
    expectTypeOf<JsonValue>().toEqualTypeOf<core.JsonValue>();
    expectTypeOf<ToolDefinition>().toEqualTypeOf<core.ToolDefinition>();
    expectTypeOf<SearchAnswer>().toEqualTypeOf<SearchToolsResult>();
    expectTypeOf<ToolShape>().toEqualTypeOf<CoreToolShape>();
    expectTypeOf<ConfirmAnswer["mode"]>().toEqualTypeOf<core.OpenConfirmation["mode"]>();
    expectTypeOf<PrepareAnswer["applied"]>().toEqualTypeOf<PrepareOutput["applied"]>();
    expectTypeOf<PrepareAnswer["discovered"]>().toEqualTypeOf<PrepareOutput["discovered"]>();
    expectTypeOf<Omit<PrepareAnswer["stats"], "tokensPerTool" | "autoDiscovered">>().toEqualTypeOf<PrepareOutput["stats"]>();
    expectTypeOf<NonNullable<PrepareAnswer["stats"]["autoDiscovered"]>>().toEqualTypeOf<PrepareOutput["autoDiscovered"]>();
  });
});
