// `node scripts/ensureDevVars.ts`: makes .dev.vars from .dev.vars.example when absent (scripts/devVars.ts), before the
// npm scripts that run wrangler without npm start: `wrangler types` lists .dev.vars' secrets in the Env type.
import { ensureDevVars } from "./devVars.ts";

if (ensureDevVars()) console.log("made .dev.vars from .dev.vars.example (a random AUTH_JWT_SECRET, local only)");
