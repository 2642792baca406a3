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
  const callback = await payOnSandboxPage(await pressPay(`${gatewayUrl}/checkout/${code}/pay`, { email }));
  await followCallback(callback);
}

/** "Pay" on one of the platform's hosted pages (a form POST): the provider's page it sends the payer to. */
export async function pressPay(payUrl: string, fields: Record<string, string> = {}): Promise<string> {
  const pay = await fetch(payUrl, form(fields));
  if (pay.status !== 303) throw new Error(`hosted page answered ${pay.status}`);
  return pay.headers.get('location')!;
}

/** The sandbox's payment page answered with `outcome` (its "Success" by default): where it sends the payer back. */
export async function payOnSandboxPage(authorizationUrl: string, outcome = 'success'): Promise<string> {
  const answer = await fetch(authorizationUrl, form({ outcome }));
  if (answer.status !== 303) throw new Error(`sandbox page answered ${answer.status}`);
  return answer.headers.get('location')!;
}

/** The payer's browser following the provider's redirect back to the platform: the platform's answer. */
export async function followCallback(callbackUrl: string): Promise<Response> {
  const callback = await fetch(callbackUrl, { redirect: 'manual' });
  if (callback.status >= 400) throw new Error(`callback answered ${callback.status}`);
  return callback;
}
