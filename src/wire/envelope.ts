// Byte-level looks at a JSON-RPC line that the bridge will not (or cannot safely) parse: its
// nesting depth, checked before any recursive code touches it (JSON.stringify overflows the stack
// on a value nested some thousands deep), and, for a line over the size limit, what kind of
// message it is and its top-level `id`, found while the line streams past (never buffered).
import { QUOTE, BACKSLASH, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY, COLON, COMMA } from "./bytes.js";

/** Nesting (arrays and objects) deeper than this is refused; real ACP traffic stays far below. */
export const DEFAULT_MAX_DEPTH = 512;

/** True if the JSON text nests arrays/objects deeper than `max` (strings are skipped). */
export function nestsDeeperThan(line: Uint8Array, max: number): boolean {
  // A line shorter than the limit cannot nest deeper than it: the common case costs nothing.
  if (line.length <= max) return false;
  // Nor can one with at most `max` opening brackets (in strings or not): counted with native
  // searches, this spares long lines (file contents) a byte loop costing several times their parse.
  if (countUpTo(line, OPEN_OBJECT, max + 1) + countUpTo(line, OPEN_ARRAY, max + 1) <= max) return false;
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const b = line[i];
    if (b === QUOTE) {
      // Skip the string (escapes included); an unterminated one ends the scan.
      for (i++; i < line.length; i++) {
        const c = line[i];
        if (c === BACKSLASH) i++;
        else if (c === QUOTE) break;
      }
    } else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
      if (++depth > max) return true;
    } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) depth--;
  }
  return false;
}

/** Occurrences of `byte` in `line`, counting stops at `limit`. */
function countUpTo(line: Uint8Array, byte: number, limit: number): number {
  let n = 0;
  for (let i = line.indexOf(byte); i !== -1 && n < limit; i = line.indexOf(byte, i + 1)) n++;
  return n;
}

type EnvelopeKind = "request" | "notification" | "response" | "unknown";

export interface Envelope {
  readonly kind: EnvelopeKind;
  /** The top-level id, when one was seen and is a valid JSON-RPC id. */
  readonly id?: string | number | null;
}

/** Longest id token kept (an id longer than this cannot be answered by the size-limit path). */
const MAX_ID_TOKEN = 1024;
/** Longest top-level key kept (longer keys are none of the ones looked for). */
const MAX_KEY = 16;

/**
 * Streams a JSON object's bytes and records its top-level keys `id`, `method`, `result` and
 * `error`, and the `id` value's token, without keeping the rest. Works across chunk boundaries.
 */
export class EnvelopeScanner {
  private depth = 0;
  private inString = false;
  private escape = false;
  /** Collecting a top-level key's bytes (inside its string). */
  private key: number[] | undefined;
  private lastKey = "";
  /** After a top-level key's colon, before its value starts. */
  private expectValue = false;
  /** Collecting the `id` value's token. */
  private idToken: number[] | undefined;
  private idDone = false;
  private readonly keys = new Set<string>();
  private idText: string | undefined;

  push(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i] ?? 0;
      if (this.idToken && !this.idDone) {
        if (this.collectId(b)) continue;
      }
      if (this.inString) {
        if (this.key && this.key.length <= MAX_KEY && !(b === QUOTE && !this.escape)) this.key.push(b);
        if (this.escape) this.escape = false;
        else if (b === BACKSLASH) this.escape = true;
        else if (b === QUOTE) {
          this.inString = false;
          if (this.key) {
            this.lastKey = this.key.length <= MAX_KEY ? Buffer.from(this.key).toString("utf8") : "";
            this.key = undefined;
          }
        }
        continue;
      }
      if (b === QUOTE) {
        this.inString = true;
        if (this.depth === 1 && !this.expectValue) this.key = [];
        else if (this.depth === 1 && this.expectValue && this.lastKey === "id") this.startId(b);
        this.expectValue = false;
      } else if (b === COLON && this.depth === 1) {
        this.keys.add(this.lastKey);
        this.expectValue = true;
      } else if (b === COMMA && this.depth === 1) {
        this.expectValue = false;
      } else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
        this.depth++;
        this.expectValue = false;
      } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
        this.depth--;
      } else if (this.expectValue && this.depth === 1 && this.lastKey === "id" && b > 0x20) {
        this.expectValue = false;
        this.startId(b);
      }
    }
  }

  private startId(first: number): void {
    this.idToken = [first];
    this.idDone = false;
    this.escape = false;
    // A string id is collected here, so the generic string state must not see its bytes.
    if (first === QUOTE) this.inString = false;
  }

  /** Returns true if the byte was consumed by the id token. */
  private collectId(b: number): boolean {
    const token = this.idToken;
    if (!token) return false;
    const isString = token[0] === QUOTE;
    if (isString) {
      token.push(b);
      if (this.escape) this.escape = false;
      else if (b === BACKSLASH) this.escape = true;
      else if (b === QUOTE) this.finishId();
      if (token.length > MAX_ID_TOKEN) this.abandonId();
      return true;
    }
    // A number or literal ends at a delimiter, which the caller then handles normally.
    if (b === COMMA || b === CLOSE_OBJECT || b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) {
      this.finishId();
      return false;
    }
    token.push(b);
    if (token.length > MAX_ID_TOKEN) this.abandonId();
    return true;
  }

  private finishId(): void {
    this.idDone = true;
    if (this.idToken) this.idText = Buffer.from(this.idToken).toString("utf8");
    this.idToken = undefined;
  }

  private abandonId(): void {
    this.idDone = true;
    this.idToken = undefined;
  }

  /** The top-level id's token as written (e.g. a number beyond 2^53), if one was read. */
  token(): string | undefined {
    return this.idText;
  }

  /** What was seen so far. */
  result(): Envelope {
    const hasId = this.keys.has("id");
    const kind: EnvelopeKind = this.keys.has("method")
      ? hasId
        ? "request"
        : "notification"
      : hasId && (this.keys.has("result") || this.keys.has("error"))
        ? "response"
        : "unknown";
    const id = this.idText === undefined ? undefined : parseId(this.idText);
    return id === undefined ? { kind } : { kind, id };
  }
}

function parseId(token: string): string | number | null | undefined {
  try {
    const v: unknown = JSON.parse(token);
    return typeof v === "string" || typeof v === "number" || v === null ? v : undefined;
  } catch {
    return undefined;
  }
}
