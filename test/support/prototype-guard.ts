// Every test file's setup: a test that leaves an enumerable key on Object.prototype or
// Array.prototype fails, and the key is removed. Such a key (a model keyed by an agent's id writing
// through `__proto__`) reaches every `for…in` of every later file sharing the worker (the source
// project shares its modules): vitest's own hooks and Ajv's rules broke there, 80 files at once.
import { afterEach } from "vitest";

function enumerableOn(proto: object): string[] {
  const keys: string[] = [];
  for (const k in proto) keys.push(k);
  return keys;
}

afterEach(() => {
  const polluted = [
    ...enumerableOn(Object.prototype).map((k) => `Object.prototype.${k}`),
    ...enumerableOn(Array.prototype).map((k) => `Array.prototype.${k}`),
  ];
  if (polluted.length === 0) return;
  for (const k of enumerableOn(Object.prototype)) Reflect.deleteProperty(Object.prototype, k);
  for (const k of enumerableOn(Array.prototype)) Reflect.deleteProperty(Array.prototype, k);
  throw new Error(`the test left ${polluted.join(", ")}: a write through __proto__`);
});
