/** An error as one line of text; an AggregateError (a connection tried on several addresses) as each of its errors. */
export function errorMessage(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return err.errors.map(errorMessage).join('; ');
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}
