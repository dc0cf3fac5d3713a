// The extension's settings, kept in chrome.storage.local (the options page writes them, the service worker reads them).
export interface Settings {
  gatewayUrl: string;
  token: string;
  modelUrl: string;
  modelName: string;
  modelKey: string;
}

export const SETTING_KEYS: readonly (keyof Settings)[] = ["gatewayUrl", "token", "modelUrl", "modelName", "modelKey"];

export async function loadSettings(): Promise<Settings> {
  const stored = await chrome.storage.local.get([...SETTING_KEYS]);
  const text = (key: keyof Settings): string => {
    const value = stored[key];
    return typeof value === "string" ? value : "";
  };
  return { gatewayUrl: text("gatewayUrl"), token: text("token"), modelUrl: text("modelUrl"), modelName: text("modelName"), modelKey: text("modelKey") };
}

export async function saveSettings(settings: Settings): Promise<void> {
  await chrome.storage.local.set({ ...settings });
}
