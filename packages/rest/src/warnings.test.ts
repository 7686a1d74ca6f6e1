import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  deduplicateWarnings,
  parseWarningHeaders,
  type Warning,
  warningToConsole,
} from './warnings.js';

describe('parseWarningHeaders', () => {
  it('parses the API server format', () => {
    expect(
      parseWarningHeaders(['299 - "policy/v1beta1 PodSecurityPolicy is deprecated in v1.21+"']),
    ).toEqual([
      { code: 299, agent: '-', text: 'policy/v1beta1 PodSecurityPolicy is deprecated in v1.21+' },
    ]);
  });

  it('handles several warnings per header, commas and escaped quotes inside text', () => {
    expect(
      parseWarningHeaders([
        '299 - "first, with a comma", 299 kube-apiserver "say \\"hi\\"" "Wed, 21 Oct 2015 07:28:00 GMT"',
        '299 - "third"',
      ]).map((warning) => warning.text),
    ).toEqual(['first, with a comma', 'say "hi"', 'third']);
  });

  it('skips malformed entries and keeps the good ones', () => {
    expect(parseWarningHeaders(['garbage, 299 - "kept", 299 - "unterminated'])).toEqual([
      { code: 299, agent: '-', text: 'kept' },
    ]);
  });
});

describe('warning handlers', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('warningToConsole prints code-299 warnings like kubectl', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    warningToConsole({ code: 299, agent: '-', text: 'deprecated' });
    warningToConsole({ code: 199, agent: '-', text: 'ignored' });
    expect(warn.mock.calls).toEqual([['Warning: deprecated']]);
  });

  it('deduplicateWarnings passes each text once', () => {
    const seen: Warning[] = [];
    const handler = deduplicateWarnings((warning) => seen.push(warning));
    handler({ code: 299, agent: '-', text: 'a' });
    handler({ code: 299, agent: '-', text: 'a' });
    handler({ code: 299, agent: '-', text: 'b' });
    expect(seen.map((warning) => warning.text)).toEqual(['a', 'b']);
  });
});
