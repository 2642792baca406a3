const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields),
  redirect: 'manual' as const,
});

/**
 * Pays the hosted checkout page of session `code` over HTTP exactly as a payer's browser does:
 * the hosted form with `email`, the sandbox page's "Success", the callback. The session itself
 * is created and read back by the caller, through whichever client its test drives the API with.
 */
export async function payCheckoutPageInSandbox(gatewayUrl: string, code: string, email: string): Promise<void> {
  const pay = await fetch(`${gatewayUrl}/checkout/${code}/pay`, form({ email }));
  if (pay.status !== 303) throw new Error(`hosted page answered ${pay.status}`);
  const outcome = await fetch(pay.headers.get('location')!, form({ outcome: 'success' }));
  if (outcome.status !== 303) throw new Error(`sandbox page answered ${outcome.status}`);
  const callback = await fetch(outcome.headers.get('location')!, { redirect: 'manual' });
  if (callback.status >= 400) throw new Error(`callback answered ${callback.status}`);
}
