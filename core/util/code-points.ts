/** Move a byte offset in one buffer back to the start of the UTF-8 code point it falls in. */
export function codePointStart(bytes: Uint8Array, offset: number): number {
  let position = Math.max(0, Math.min(offset, bytes.length));
  while (position > 0 && position < bytes.length && (bytes[position]! & 0xc0) === 0x80) position -= 1;
  return position;
}
