/**
 * Escape text for HTML element content and attribute values: the one escaping of the pages
 * pi-fold writes (the session viewer's and the lab's reports), so both read the same.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
