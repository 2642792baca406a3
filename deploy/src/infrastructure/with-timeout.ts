/** `promise`, or a rejection saying `why` when it has not settled within `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, why: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(why)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
