export const MAX_JSON_DEPTH = 32;

/** Nesting depth of a parsed JSON value, walked without recursion so no input can exhaust the stack. */
export function jsonDepth(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    max = Math.max(max, depth);
    if (depth > MAX_JSON_DEPTH) return depth;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return max;
}
