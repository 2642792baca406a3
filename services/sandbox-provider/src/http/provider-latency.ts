import type { RequestHandler } from 'express';

/**
 * Makes the provider's API as slow as a real one (SANDBOX_LATENCY_MS, docs/configuration.md): each
 * call waits `latencyMs` give or take 10% (uniform jitter, so calls sent together do not all answer
 * together) before it is handled. The sandbox answers in about a millisecond otherwise, and a
 * scheduler sized against that would look fast and stall at a real provider's hundreds of ms.
 * 0 (the default) adds nothing.
 */
export function providerLatency(latencyMs: number): RequestHandler {
  if (latencyMs <= 0) return (_req, _res, next) => next();
  return (_req, _res, next) => {
    const jitter = (Math.random() * 2 - 1) * latencyMs * 0.1;
    setTimeout(next, Math.max(0, latencyMs + jitter));
  };
}
