import { gunzipSync } from 'node:zlib';

/** What a viewer page embeds for its script: its folds, their verified sources, its page size. */
export interface EmbeddedViewerData {
  readonly pageChars: number;
  readonly folds: {
    id: string;
    kind: string;
    epoch: number;
    parts: { entryId?: string; sha256?: string; foldId?: string }[];
  }[];
  readonly sources: Record<string, string>;
}

/** Read the data a page embeds (JSON, gzip, base64 in a JSON string), as its own script does. */
export function embeddedViewerData(html: string): EmbeddedViewerData {
  const match = /<script type="application\/json" id="viewer-data">([\s\S]*?)<\/script>/.exec(html);
  if (match === null) throw new Error('the page embeds no viewer data');
  return JSON.parse(gunzipSync(Buffer.from(JSON.parse(match[1]!) as string, 'base64')).toString('utf8'));
}
