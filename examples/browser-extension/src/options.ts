// The settings page: the gateway URL and token, the model's URL, name and key, kept in chrome.storage.local.
import { loadSettings, saveSettings, SETTING_KEYS } from "./settings.ts";
import type { Settings } from "./settings.ts";

function field(id: string): HTMLInputElement {
  const found = document.getElementById(id);
  if (!(found instanceof HTMLInputElement)) throw new Error(`#${id} is missing`);
  return found;
}

const form = document.getElementById("settings");
const status = document.getElementById("status");

async function start(): Promise<void> {
  const settings = await loadSettings();
  for (const key of SETTING_KEYS) field(key).value = settings[key];
}

form?.addEventListener("submit", (event) => {
  event.preventDefault();
  const settings: Settings = { gatewayUrl: "", token: "", modelUrl: "", modelName: "", modelKey: "" };
  for (const key of SETTING_KEYS) settings[key] = field(key).value.trim();
  saveSettings(settings).then(
    () => {
      if (status) status.textContent = "Saved.";
    },
    (error: unknown) => {
      if (status) status.textContent = `Not saved: ${String(error)}`;
    },
  );
});

start().catch((error: unknown) => {
  if (status) status.textContent = `Could not read the settings: ${String(error)}`;
});
