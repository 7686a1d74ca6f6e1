/**
 * A small subset of Go's `fmt.Sprintf`, enough for event messages: `%s`, `%d`, `%v`
 * (also `%+v`, `%#v`), `%q`, `%f`, `%x`, `%t` and `%%`. Missing and extra arguments are
 * reported inline the way Go does (`%!s(MISSING)`, `%!(EXTRA ...)`), never thrown.
 */
export function sprintf(format: string, args: readonly unknown[]): string {
  let next = 0;
  const out = format.replace(/%([+#]?)([a-zA-Z%])/g, (_whole, _flag: string, verb: string) => {
    if (verb === '%') return '%';
    if (next >= args.length) return `%!${verb}(MISSING)`;
    const arg = args[next++];
    switch (verb) {
      case 's':
      case 'v':
        return formatValue(arg);
      case 'd':
        if (typeof arg === 'bigint') return arg.toString();
        if (typeof arg === 'number' && Number.isFinite(arg)) return Math.trunc(arg).toString();
        return `%!d(${typeName(arg)}=${formatValue(arg)})`;
      case 'f':
        return typeof arg === 'number'
          ? arg.toFixed(6)
          : `%!f(${typeName(arg)}=${formatValue(arg)})`;
      case 'x':
        if (typeof arg === 'number' && Number.isInteger(arg)) return arg.toString(16);
        if (typeof arg === 'bigint') return arg.toString(16);
        if (typeof arg === 'string') return Buffer.from(arg, 'utf8').toString('hex');
        return `%!x(${typeName(arg)}=${formatValue(arg)})`;
      case 'q':
        return JSON.stringify(typeof arg === 'string' ? arg : formatValue(arg));
      case 't':
        return typeof arg === 'boolean' ? String(arg) : `%!t(${typeName(arg)}=${formatValue(arg)})`;
      default:
        return `%!${verb}(${typeName(arg)}=${formatValue(arg)})`;
    }
  });
  if (next >= args.length) return out;
  const extra = args
    .slice(next)
    .map((arg) => `${typeName(arg)}=${formatValue(arg)}`)
    .join(', ');
  return `${out}%!(EXTRA ${extra})`;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return `<${String(value)}>`;
  if (value instanceof Error) return value.message;
  if (typeof value === 'object') {
    if (typeof (value as { toString?: unknown }).toString === 'function') {
      const text = String(value);
      if (text !== '[object Object]') return text;
    }
    try {
      return JSON.stringify(value, (_key, v: unknown) =>
        typeof v === 'bigint' ? v.toString() : v,
      );
    } catch {
      return String(value);
    }
  }
  return String(value);
}
