import type { FieldViolation } from './errors';

/**
 * The fields a PATCH clears. A field sent as null travels over gRPC by its name in
 * `cleared_fields` (proto3 has no null), so the service checks each name: one of `clearable`, and
 * not also set (`isSet`). Every other name is a 422 item at ["body", name] pushed onto
 * `violations` (`what` names the clearable fields in its words). Returns the names that clear.
 */
export function clearedFields<F extends string>(
  names: string[],
  clearable: readonly F[],
  isSet: (field: F) => boolean,
  what: string,
  violations: FieldViolation[],
): F[] {
  const cleared: F[] = [];
  for (const name of names) {
    const field = clearable.find((f) => f === name);
    if (field === undefined) {
      violations.push({ loc: ['body', name], msg: `Only ${what} may be cleared with null`, type: 'value_error' });
    } else if (isSet(field)) {
      violations.push({ loc: ['body', name], msg: 'A field cannot be both set and cleared', type: 'value_error' });
    } else {
      cleared.push(field);
    }
  }
  return cleared;
}
