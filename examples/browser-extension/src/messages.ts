// What the popup and the service worker say to each other over their port.
import type { ConfirmationRequest } from "@toolgate/client";

export type ToPopup =
  | { type: "tool"; name: string; content: string; isError: boolean; approved?: boolean }
  | { type: "confirm"; details: ConfirmationRequest }
  | { type: "reply"; text: string }
  | { type: "error"; message: string }
  | { type: "busy"; busy: boolean };

export type ToWorker = { type: "send"; text: string } | { type: "decide"; id: string; approve: boolean } | { type: "reset" };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

export function isToWorker(value: unknown): value is ToWorker {
  if (!isObject(value)) return false;
  if (value["type"] === "send") return typeof value["text"] === "string";
  if (value["type"] === "decide") return typeof value["id"] === "string" && typeof value["approve"] === "boolean";
  return value["type"] === "reset";
}

export function isToPopup(value: unknown): value is ToPopup {
  return isObject(value) && typeof value["type"] === "string";
}
