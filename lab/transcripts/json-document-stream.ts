import { createReadStream } from 'node:fs';
import { fileFailure } from './transcript-file.ts';

/** A top-level field of the document, an element of the streamed array, or what could not be read. */
export type DocumentPiece =
  | { readonly kind: 'field'; readonly key: string; readonly value: unknown; readonly line: number }
  | { readonly kind: 'element'; readonly value: unknown; readonly line: number }
  | { readonly kind: 'problem'; readonly line: number; readonly problem: string };

/** Text being cut out of the stream, across chunks. */
interface Cut {
  readonly line: number;
  readonly parts: string[];
  start: number;
}

/** A value being cut out: an element or a field, and the depth at which it ends. */
interface ValueCut extends Cut {
  readonly kind: 'field' | 'element';
  readonly key: string;
  readonly depth: number;
  readonly scalar: boolean;
}

/** The structure broke: no later piece can be trusted, so reading stops with this line. */
class DocumentBroken extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

const isOpener = (char: string): boolean => char === '{' || char === '[';
const isCloser = (char: string): boolean => char === '}' || char === ']';
const isSpace = (char: string): boolean => char === ' ' || char === '\n' || char === '\r' || char === '\t';

/**
 * Cuts a JSON document into pieces by bracket depth, chunk by chunk (strings and escapes
 * respected): a root array gives its elements; a root object gives its fields, except
 * `streamedKey`, whose array gives its elements one by one. Each piece is parsed alone.
 */
class DocumentScanner {
  private depth = 0;
  private line = 1;
  private inString = false;
  private escape = false;
  private root: '{' | '[' | undefined;
  private streamDepth: number | undefined;
  private expect: 'key' | 'colon' | 'value' | 'comma' = 'key';
  private key = '';
  private keyCut: Cut | undefined;
  private value: ValueCut | undefined;
  private readonly out: DocumentPiece[] = [];

  constructor(private readonly streamedKey: string) {}

  /** Scan one chunk; the pieces it completed. */
  feed(chunk: string): DocumentPiece[] {
    if (this.value !== undefined) this.value.start = 0;
    if (this.keyCut !== undefined) this.keyCut.start = 0;
    for (let index = 0; index < chunk.length; index += 1) this.step(chunk, index);
    if (this.value !== undefined) this.value.parts.push(chunk.slice(this.value.start));
    if (this.keyCut !== undefined) this.keyCut.parts.push(chunk.slice(this.keyCut.start));
    return this.out.splice(0);
  }

  /** After the last chunk: what is missing, if anything. */
  end(): DocumentPiece[] {
    if (this.root === undefined) throw new DocumentBroken(this.line, 'the file holds no JSON document');
    if (this.depth !== 0)
      throw new DocumentBroken(
        this.line,
        `the file ends inside the document${this.value === undefined ? '' : ` (the ${this.value.kind} begun at line ${this.value.line} is unterminated)`}`,
      );
    return this.out.splice(0);
  }

  private step(chunk: string, index: number): void {
    const char = chunk[index]!;
    if (char === '\n') this.line += 1;
    if (this.inString) return this.stringStep(chunk, index, char);
    const value = this.value;
    if (value?.scalar === true && this.depth === value.depth && (isSpace(char) || char === ',' || isCloser(char)))
      this.finishValue(chunk, index);
    if (isSpace(char)) return;
    if (this.depth === 0) return this.rootStep(char);
    if (this.root === '{' && this.depth === 1 && this.value === undefined && this.fieldSyntaxStep(chunk, index, char))
      return;
    if (this.value === undefined && this.valueStartStep(chunk, index, char)) return;
    if (char === '"') this.inString = true;
    else if (isOpener(char)) this.depth += 1;
    else if (isCloser(char)) {
      this.depth -= 1;
      if (this.value !== undefined && !this.value.scalar && this.depth === this.value.depth)
        this.finishValue(chunk, index + 1);
      else if (this.streamDepth !== undefined && this.depth === this.streamDepth - 1) {
        this.streamDepth = undefined;
        if (this.root === '{') this.expect = 'comma';
      }
    }
  }

  private stringStep(chunk: string, index: number, char: string): void {
    if (this.escape) this.escape = false;
    else if (char === '\\') this.escape = true;
    else if (char === '"') {
      this.inString = false;
      if (this.keyCut !== undefined) {
        const cut = this.keyCut;
        this.keyCut = undefined;
        cut.parts.push(chunk.slice(cut.start, index + 1));
        this.key = String(JSON.parse(cut.parts.join('')));
        this.expect = 'colon';
      } else if (this.value?.scalar === true && this.depth === this.value.depth) this.finishValue(chunk, index + 1);
    }
  }

  private rootStep(char: string): void {
    if (this.root !== undefined) throw new DocumentBroken(this.line, 'text after the end of the document');
    if (!isOpener(char))
      throw new DocumentBroken(this.line, `the document does not start with { or [ (found "${char}")`);
    this.root = char as '{' | '[';
    this.depth = 1;
    if (this.root === '[') this.streamDepth = 1;
  }

  // The root object's own syntax: keys, colons and commas between its fields.
  private fieldSyntaxStep(_chunk: string, index: number, char: string): boolean {
    if (this.expect === 'key' && char === '"') {
      this.inString = true;
      this.keyCut = { line: this.line, parts: [], start: index };
      return true;
    }
    if (isCloser(char)) return false;
    if (this.expect === 'colon' && char === ':') this.expect = 'value';
    else if (this.expect === 'comma' && char === ',') this.expect = 'key';
    else if (this.expect !== 'value')
      throw new DocumentBroken(this.line, `unexpected "${char}" between the document's fields`);
    return this.expect !== 'value' || char === ':';
  }

  private valueStartStep(_chunk: string, index: number, char: string): boolean {
    const kind =
      this.streamDepth !== undefined && this.depth === this.streamDepth
        ? 'element'
        : this.root === '{' && this.depth === 1 && this.expect === 'value'
          ? 'field'
          : undefined;
    if (kind === undefined || char === ',' || isCloser(char)) return false;
    if (kind === 'field' && this.key === this.streamedKey && char === '[') {
      this.streamDepth = 2;
      this.depth = 2;
      return true;
    }
    this.value = {
      kind,
      key: this.key,
      line: this.line,
      depth: this.depth,
      scalar: !isOpener(char),
      parts: [],
      start: index,
    };
    if (char === '"') this.inString = true;
    if (isOpener(char)) this.depth += 1;
    return true;
  }

  private finishValue(chunk: string, endExclusive: number): void {
    const cut = this.value!;
    this.value = undefined;
    cut.parts.push(chunk.slice(cut.start, endExclusive));
    try {
      const value: unknown = JSON.parse(cut.parts.join(''));
      this.out.push(
        cut.kind === 'field'
          ? { kind: 'field', key: cut.key, value, line: cut.line }
          : { kind: 'element', value, line: cut.line },
      );
    } catch (error) {
      this.out.push({
        kind: 'problem',
        line: cut.line,
        problem: `invalid JSON ${cut.kind === 'field' ? `in field "${cut.key}"` : 'element'} (${(error as Error).message.slice(0, 80)})`,
      });
    }
    if (this.root === '{' && this.depth === 1) this.expect = 'comma';
  }
}

/**
 * Stream one JSON document (a pretty-printed `.traj.json` of any size) without holding it
 * whole: see `DocumentScanner`. An element that is not valid JSON is a `problem` with its
 * line number and the rest still reads; a document whose structure breaks (text after its
 * end, a file that ends inside it) ends with a `problem` naming the line.
 */
export async function* readJsonDocument(
  path: string,
  streamedKey = 'messages',
  chunkBytes = 1 << 20,
): AsyncGenerator<DocumentPiece> {
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: chunkBytes });
  const scanner = new DocumentScanner(streamedKey);
  try {
    for await (const chunk of stream as AsyncIterable<string>) yield* scanner.feed(chunk);
    yield* scanner.end();
  } catch (error) {
    if (error instanceof DocumentBroken) {
      yield { kind: 'problem', line: error.line, problem: error.message };
      return;
    }
    throw fileFailure(path, error);
  } finally {
    stream.destroy();
  }
}
