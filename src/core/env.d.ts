// The core runs in workerd, Node and browsers alike: it may use only what all three share. This file declares that
// much for tsconfig.core.json (no Worker, Node or DOM types); the other configurations have the real declarations and
// leave this file out.
declare const console: {
  warn(...data: unknown[]): void;
  log(...data: unknown[]): void;
  error(...data: unknown[]): void;
};
// Web Crypto's SHA-256 and UTF-8 encoding (core/digest.ts).
declare const crypto: {
  readonly subtle: { digest(algorithm: "SHA-256", data: Uint8Array): Promise<ArrayBuffer> };
};
declare class TextEncoder {
  encode(input?: string): Uint8Array;
}
// Base64 to a byte per character (mcp/modern.ts reads Base64-sentinel header values).
declare function atob(data: string): string;
// A byte per character to Base64 (base64url.ts).
declare function btoa(data: string): string;
// UTF-8 decoding: index snapshots (search/snapshotCodec.ts), the word-vector table's words (search/wordVectors.ts); bad bytes refused (mcp/modern.ts reads Base64-sentinel
// header values).
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(input?: Uint8Array): string;
}
