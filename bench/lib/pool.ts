/** Runs `task(i)` for i in [0, count) with at most `concurrency` in flight. */
export async function runPool(count: number, concurrency: number, task: (i: number) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}
