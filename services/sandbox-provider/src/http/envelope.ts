import type { Response } from 'express';

/** Paystack's success envelope: `{status: true, message, data}`. */
export function sendData(res: Response, message: string, data: unknown, httpStatus = 200): void {
  res.status(httpStatus).json({ status: true, message, data });
}
