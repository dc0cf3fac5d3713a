// Wrangler's Data modules (wrangler.toml's [[rules]]): a `.bin` file imports as its bytes.
declare module "*.bin" {
  const data: ArrayBuffer;
  export default data;
}
