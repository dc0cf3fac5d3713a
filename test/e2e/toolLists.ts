// Tool lists the browser test pastes and uploads.

const AREAS = ["contact", "invoice", "ticket", "calendar", "report", "inventory"] as const;
const VERBS = ["create", "update", "archive", "list", "export"] as const;

/** 30 CRM-like tools in MCP shape (`inputSchema`): more than maxDiscoveredKeep (20), to see the set stay bounded. */
export function mcpToolList(): { tools: { name: string; description: string; inputSchema: object }[] } {
  const tools = AREAS.flatMap((area) =>
    VERBS.map((verb) => ({
      name: `crm_${area}_${verb}`,
      description: `${verb[0]?.toUpperCase()}${verb.slice(1)} a ${area} record in the CRM.`,
      inputSchema: { type: "object", properties: { id: { type: "string", description: `The ${area} id.` } } },
    })),
  );
  return { tools };
}

/** Three tools in Anthropic shape (`input_schema`), uploaded as a file. */
export function anthropicToolList(): object[] {
  return [
    {
      name: "get_weather",
      description: "Current weather for a city.",
      input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
    {
      name: "get_forecast",
      description: "Weather forecast for the next days.",
      input_schema: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city"] },
    },
    {
      name: "air_quality",
      description: "Air quality index for a city.",
      input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  ];
}
