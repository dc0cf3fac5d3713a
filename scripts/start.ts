// `npm start`: wrangler dev on loopback, then a playground link that carries a development token (level 2, every
// group, not owner) in the URL fragment, so that the whole demo catalog shows without curl or a token command.
import { spawn } from "node:child_process";
import { devMaxTokenLifetime, mintDevToken } from "./devToken.ts";

const HOST = "127.0.0.1";
const PORT = process.env.PORT ?? "8787";
const origin = `http://${HOST}:${PORT}`;

const wrangler = spawn("wrangler", ["dev", "--ip", HOST, "--port", PORT, ...process.argv.slice(2)], {
  stdio: "inherit",
});
wrangler.on("exit", (code) => process.exit(code ?? 0));
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => wrangler.kill(signal));

async function announceWhenUp(): Promise<void> {
  for (let attempt = 0; attempt < 240; attempt++) {
    try {
      const response = await fetch(`${origin}/v1/health`);
      if (response.ok) break;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const token = await mintDevToken({ sub: "developer", level: 2, groups: ["*"], owner: false, ttlSeconds: devMaxTokenLifetime() });
  console.log(`\ntoolgate is up on ${origin}`);
  console.log(`Playground with a development token (every demo group, level 2):\n  ${origin}/#token=${token}`);
  console.log(`Anonymous access (ungrouped tools only): ${origin}/\n`);
}

announceWhenUp().catch((error: unknown) => console.error("start:", error));
