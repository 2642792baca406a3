import { MAX_JSON_DEPTH, prepareJsonText } from '../src/http/json-text';

const nestedText = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('prepareJsonText', () => {
  it('takes 32 levels and refuses the 33rd, objects and arrays alike', () => {
    expect(prepareJsonText(nestedText(MAX_JSON_DEPTH))).toEqual({ ok: true, text: nestedText(MAX_JSON_DEPTH) });
    expect(prepareJsonText(nestedText(MAX_JSON_DEPTH + 1))).toEqual({ ok: false, depth: 33 });
    expect(prepareJsonText(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`)).toEqual({ ok: false, depth: 33 });
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ a: '[[[[{{{{'.repeat(10), b: 'say \\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[' });
    expect(prepareJsonText(text)).toEqual({ ok: true, text });
  });

  it('keeps the written text of quantity numbers, and only of those', () => {
    const text = '{"quantity": 1e3, "amount": 1e3, "records": [{"quantity":-0.10}, {"quantity": "2"}], "q": [1.5]}';
    const prepared = prepareJsonText(text);
    expect(prepared.ok && JSON.parse(prepared.text)).toEqual({
      quantity: '1e3',
      amount: 1000,
      records: [{ quantity: '-0.10' }, { quantity: '2' }],
      q: [1.5],
    });
    expect(prepareJsonText('{"quant\\u0069ty": 123456789012345678.25}')).toEqual({
      ok: true,
      text: '{"quant\\u0069ty": "123456789012345678.25"}',
    });
  });

  it('leaves what is not a JSON number for JSON.parse to refuse', () => {
    for (const text of [
      '{"quantity": 01}',
      '{"quantity": 1.}',
      '{"quantity": -}',
      '{"quantity": 1e}',
      '{"quantity": .5}',
    ]) {
      expect(prepareJsonText(text)).toEqual({ ok: true, text });
    }
  });
});
