// The ids a client chooses for what it names: sessions (the Durable Object of a principal's session) and the contexts
// that register tools (disposed together). One rule for both, also checked by the playground before it sends one.

/** 1 to 128 characters of `A-Z a-z 0-9 . _ : -` (no `/`: a session object's name puts one before the id). */
export const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
