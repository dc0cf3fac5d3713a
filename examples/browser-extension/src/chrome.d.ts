// The few extension APIs this example uses (no @types/chrome dependency).
declare namespace chrome {
  namespace runtime {
    interface Port {
      name: string;
      postMessage(message: unknown): void;
      disconnect(): void;
      onMessage: { addListener(callback: (message: unknown, port: Port) => void): void };
      onDisconnect: { addListener(callback: (port: Port) => void): void };
    }
    function connect(info?: { name?: string }): Port;
    const onConnect: { addListener(callback: (port: Port) => void): void };
  }
  namespace storage {
    const local: {
      get(keys: string[]): Promise<Record<string, unknown>>;
      set(items: Record<string, unknown>): Promise<void>;
    };
  }
}
