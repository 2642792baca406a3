import { z } from 'zod';

export const ErrorSchema = z
  .object({ detail: z.string().meta({ description: 'One sentence saying what went wrong' }) })
  .meta({ id: 'Error' });

export const ValidationErrorItemSchema = z
  .object({
    loc: z
      .array(z.union([z.string(), z.number().int()]))
      .meta({ description: 'Where: ["body", "password"], ["query", "project_id"]' }),
    msg: z.string(),
    type: z.string().meta({ description: 'Machine-readable kind, e.g. missing, string_too_short, json_invalid' }),
    input: z.unknown().optional(),
    ctx: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'ValidationErrorItem' });

export const ValidationErrorSchema = z
  .object({ detail: z.array(ValidationErrorItemSchema) })
  .meta({ id: 'HTTPValidationError' });
