// Small DOM helpers. Every text goes in through textContent: tool results carry external text, never markup.

export type Child = Node | string | number | null | undefined | false;

export interface Props {
  className?: string;
  attrs?: Record<string, string>;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props?.className) element.className = props.className;
  for (const [name, value] of Object.entries(props?.attrs ?? {})) element.setAttribute(name, value);
  for (const child of children) if (present(child)) element.append(typeof child === "number" ? String(child) : child);
  return element;
}

/** The element with this id, of this kind; a missing one is a bug in index.html, so it fails loudly. */
export function byId<T extends HTMLElement>(id: string, kind: { new (): T; prototype: T }): T {
  const element = document.getElementById(id);
  if (!(element instanceof kind)) throw new Error(`index.html has no <${kind.name}> #${id}`);
  return element;
}

export function formatNumber(value: number): string {
  return value.toLocaleString("en");
}

/** "1 tool", "12 tools". */
export function count(value: number, one: string, many: string): string {
  return `${formatNumber(value)} ${value === 1 ? one : many}`;
}

/** JSON text as the page shows it: pretty when it parses, as given otherwise. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function codeBlock(text: string, className = "code"): HTMLPreElement {
  return h("pre", { className, attrs: { tabindex: "0" } }, h("code", null, text));
}

/**
 * Runs one request for a button: disables it (no double submits) and marks the region busy meanwhile.
 * The error goes to the region's alert element; success clears it.
 */
export async function runFor(
  button: HTMLButtonElement,
  region: HTMLElement,
  alert: HTMLElement,
  describe: (error: unknown) => string,
  task: () => Promise<void>,
): Promise<void> {
  button.disabled = true;
  region.setAttribute("aria-busy", "true");
  alert.textContent = "";
  try {
    await task();
  } catch (error) {
    alert.textContent = describe(error);
  } finally {
    button.disabled = false;
    region.removeAttribute("aria-busy");
  }
}

function present(child: Child): child is Node | string | number {
  return child !== null && child !== undefined && child !== false;
}

/** Replaces a container's content; null, undefined and false children are left out. */
export function fill(container: HTMLElement, ...children: Child[]): void {
  container.replaceChildren(...children.filter(present).map((child) => (typeof child === "number" ? String(child) : child)));
}
