import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { HttpError } from './http-error';
import { MAX_JSON_DEPTH, prepareJsonText } from './json-text';
import { recordBodyProblem } from './validation';

/** docs/api-behaviour.md §14: a request body over 1 MiB is refused with 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * Reads every body (whatever its content type, so the size limit holds for all of them) and
 * parses JSON here rather than in body-parser, so that malformed JSON, a JSON scalar and a
 * non-JSON content type all become 422 items in the published shape instead of a bare 400.
 */
export function readJsonBody(): (RequestHandler | ErrorRequestHandler)[] {
  const readRaw = express.raw({ type: () => true, limit: MAX_BODY_BYTES });
  // body-parser names every failure it expects (too large, unknown encoding, aborted: errors.ts
  // maps those) but passes a body that does not decompress as its Content-Encoding says (zlib's
  // own error, no type) on as is: that is the client's malformed body, not our fault.
  const undecodable: ErrorRequestHandler = (err: unknown, _req, _res, next) => {
    const { type, status } = err as { type?: unknown; status?: unknown };
    if (type === undefined && status === 400) {
      return next(new HttpError(400, 'The request body does not decode as its Content-Encoding says'));
    }
    next(err);
  };
  const parse: RequestHandler = (req, _res, next) => {
    const raw: unknown = req.body;
    req.body = undefined;
    if (!Buffer.isBuffer(raw) || raw.length === 0) return next();
    const text = raw.toString('utf8');
    if (!req.is(JSON_TYPES)) {
      recordBodyProblem(req, {
        loc: ['body'],
        msg: 'Input should be a valid dictionary or object to extract fields from (send Content-Type: application/json)',
        type: 'model_attributes_type',
      });
      return next();
    }
    const prepared = prepareJsonText(text);
    if (!prepared.ok) {
      recordBodyProblem(req, {
        loc: ['body'],
        msg: `JSON should be nested at most ${MAX_JSON_DEPTH} levels deep`,
        type: 'json_too_deep',
        ctx: { max_depth: MAX_JSON_DEPTH },
      });
      return next();
    }
    try {
      req.body = JSON.parse(prepared.text) as unknown;
    } catch {
      // Quoting numbers keeps a text valid or invalid alike; the original text gives the positions.
      const message = parseError(text);
      const position = /position (\d+)/.exec(message)?.[1];
      recordBodyProblem(req, {
        loc: position === undefined ? ['body'] : ['body', Number(position)],
        msg: 'JSON decode error',
        type: 'json_invalid',
        ctx: { error: message },
      });
    }
    next();
  };
  return [readRaw, undecodable, parse];
}

function parseError(text: string): string {
  try {
    JSON.parse(text);
    return 'JSON decode error';
  } catch (err) {
    return (err as Error).message;
  }
}
