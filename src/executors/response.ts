// Reading an executor's answer: status, content type, a size cap enforced while streaming, a timeout, and the
// errors the model reads. Shared by fetch_url, http and service executors.

/** Content types read as text; everything else (images, archives, octet streams, …) is refused. */
const TEXT_TYPES = [
  /^text\//,
  /^application\/(?:json|ld\+json|x-ndjson|ndjson|xml|javascript|ecmascript|x-javascript|yaml|x-yaml|toml|x-www-form-urlencoded|graphql|sql|csv)$/,
  /^application\/[a-z0-9.+-]+\+(?:json|xml)$/,
];

export function isTextContentType(mediaType: string): boolean {
  return TEXT_TYPES.some((pattern) => pattern.test(mediaType));
}

function parseContentType(header: string | null): { mediaType: string; charset: string | undefined } | undefined {
  if (header === null || header.trim() === "") return undefined;
  const [type = "", ...params] = header.split(";");
  let charset: string | undefined;
  for (const param of params) {
    const [key = "", value = ""] = param.split("=");
    if (key.trim().toLowerCase() === "charset") charset = value.trim().replace(/^"|"$/g, "");
  }
  return { mediaType: type.trim().toLowerCase(), charset };
}

function decoder(charset: string | undefined): TextDecoder {
  try {
    return new TextDecoder(charset ?? "utf-8");
  } catch {
    return new TextDecoder("utf-8"); // an unknown charset label: UTF-8 is the best guess
  }
}

export interface ReadOptions {
  /** Names the other end in errors: a host, or `service NAME`. */
  origin: string;
  maxBytes: number;
  signal: AbortSignal;
  timeoutMs: number;
}

function timeoutMessage(options: ReadOptions): string {
  return `timed out after ${options.timeoutMs} ms waiting for ${options.origin}`;
}

/** Rejects when `signal` aborts; never rejects unobserved. */
function whenAborted(signal: AbortSignal): Promise<never> {
  const promise = new Promise<never>((_resolve, reject) => {
    const fail = (): void => reject(new Error("aborted"));
    if (signal.aborted) fail();
    else signal.addEventListener("abort", fail, { once: true });
  });
  promise.catch(() => undefined);
  return promise;
}

/** Turns a failed fetch (network error or abort) into an error naming the other end, never leaking internals. */
export function fetchFailure(error: unknown, options: ReadOptions): Error {
  if (options.signal.aborted) return new Error(timeoutMessage(options), { cause: error });
  const detail = error instanceof Error ? error.message : String(error);
  return new Error(`could not reach ${options.origin}: ${detail}`, { cause: error });
}

/**
 * The body of a 2xx text answer, read as a stream and cut off at `maxBytes` (the Content-Length is checked first).
 * Throws, with a message for the model, on a non-2xx status, a non-text content type, an oversize body or a timeout.
 */
export async function readTextBody(response: Response, options: ReadOptions): Promise<string> {
  const discard = async (): Promise<void> => {
    await response.body?.cancel().catch(() => undefined);
  };
  if (response.status < 200 || response.status > 299) {
    await discard();
    throw new Error(`HTTP ${response.status} from ${options.origin}`);
  }
  const contentType = parseContentType(response.headers.get("content-type"));
  if (contentType && !isTextContentType(contentType.mediaType)) {
    await discard();
    throw new Error(`${options.origin} answered ${contentType.mediaType}, which is not text: only text content is read`);
  }
  const tooLarge = `the answer from ${options.origin} is larger than ${options.maxBytes} bytes`;
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    await discard();
    throw new Error(tooLarge);
  }
  if (!response.body) return "";

  const reader = response.body.getReader();
  const aborted = whenAborted(options.signal);
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) break;
      total += value.byteLength;
      if (total > options.maxBytes) throw new Error(tooLarge);
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    if (options.signal.aborted) throw new Error(timeoutMessage(options), { cause: error });
    if (error instanceof Error && error.message === tooLarge) throw error;
    throw fetchFailure(error, options);
  }

  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  const text = decoder(contentType?.charset).decode(bytes);
  // Without a declared type, NUL bytes mean binary data that would only reach the model as noise.
  if (!contentType && text.includes("\u0000")) {
    throw new Error(`${options.origin} answered binary data without a content type: only text content is read`);
  }
  return text;
}
