// The core runs in workerd, Node and browsers alike: it may use only what all three share.
declare const console: {
  warn(...data: unknown[]): void;
  log(...data: unknown[]): void;
  error(...data: unknown[]): void;
};
