import { readFileSync } from 'node:fs';

/**
 * Count model responses straight from a transcript file, independently of the lab's
 * converters: Pi assistant messages, and Claude Code main-chain assistant lines merged by
 * message id (synthetic ones left out). Lines that are not JSON are counted as malformed.
 */
export function responsesInFile(path: string): { responses: number; malformed: number } {
  const ids = new Set<string>();
  let responses = 0;
  let malformed = 0;
  for (const text of readFileSync(path, 'utf8').split('\n')) {
    if (text.trim().length === 0) continue;
    let line: Record<string, any>;
    try {
      line = JSON.parse(text);
    } catch {
      malformed += 1;
      continue;
    }
    if (line.type === 'message' && line.message?.role === 'assistant') responses += 1;
    if (line.type === 'assistant' && line.isSidechain !== true && line.message?.model !== '<synthetic>')
      ids.add(line.message?.id ?? line.uuid);
  }
  return { responses: responses + ids.size, malformed };
}
