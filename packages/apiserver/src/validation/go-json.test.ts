import { describe, expect, it } from 'vitest';
import { goUnmarshalMapError } from './go-json.js';

/** Inputs and the error kube-apiserver 1.20 quoted for them in a dockerconfigjson Secret. */
const CASES: [string, string | undefined][] = [
  ['{"auths":{"r":{"auth":"eA=="}}}', undefined],
  ['null', undefined],
  [' { } ', undefined],
  ['{"a":[1,-2.5e+3,true,false,null,"\\u00e9\\n"]}', undefined],
  ['{x', "invalid character 'x' looking for beginning of object key string"],
  ['{"a":1 }x', "invalid character 'x' after top-level value"],
  ['{"a" 1}', "invalid character '1' after object key"],
  ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
  ['{"a":[1 2]}', "invalid character '2' after array element"],
  ['{"a":"\\u00zz"}', "invalid character 'z' in \\u hexadecimal character escape"],
  ['{"a":"\\q"}', "invalid character 'q' in string escape code"],
  ['{"a":-x}', "invalid character 'x' in numeric literal"],
  ['{"a":1.x}', "invalid character 'x' after decimal point in numeric literal"],
  ['{"a":1e+}', "invalid character '}' in exponent of numeric literal"],
  ['{"a":"x', 'unexpected end of JSON input'],
  ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
  ['[1,]', "invalid character ']' looking for beginning of value"],
  [' ', 'unexpected end of JSON input'],
  ['', 'unexpected end of JSON input'],
  ['nul', "invalid character ' ' in literal null (expecting 'l')"],
  ['{"a":01}', "invalid character '1' after object key:value pair"],
  ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
  ['{"a":"b\tc"}', "invalid character '\\t' in string literal"],
  ['"s"', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
  ['12', 'json: cannot unmarshal number into Go value of type map[string]interface {}'],
  ['true', 'json: cannot unmarshal bool into Go value of type map[string]interface {}'],
  ['[1]', 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
];

describe('goUnmarshalMapError', () => {
  it.each(CASES)('%j → %s', (input, expected) => {
    expect(goUnmarshalMapError(input)).toBe(expected);
  });
});
