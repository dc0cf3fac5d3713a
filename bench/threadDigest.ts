// The SHA-256 digest a snapshot is checked by, worked out on the calling thread (node:crypto), for the benches'
// thread-CPU clocks: Node's Web Crypto hashes on its thread pool, out of that clock, where workerd's hashes on the
// request's own thread. The same digest (a test holds them equal).
import { createHash } from "node:crypto";
import type { BytesDigest } from "../src/core/digest.ts";

export const threadSha256: BytesDigest = (bytes) => Promise.resolve(new Uint8Array(createHash("sha256").update(bytes).digest()));
