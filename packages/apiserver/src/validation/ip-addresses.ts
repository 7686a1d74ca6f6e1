import { isIP } from 'node:net';
import { invalid } from './field-errors.js';
import type { FieldError } from './names.js';

const IP_MSG = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

/** Apimachinery's `IsValidIP` on `ip` at `field`. */
export function validIpErrors(ip: string, field: string): FieldError[] {
  return isIP(ip) === 0 ? [invalid(field, ip, IP_MSG)] : [];
}

/** The IPv4 address `ip` holds (itself, or an IPv4-mapped IPv6 one), as four numbers. */
function ipv4Parts(ip: string): number[] | undefined {
  const v4 = isIP(ip) === 4 ? ip : /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  return v4?.split('.').map(Number);
}

/**
 * `validateNonSpecialIP`: a valid address that is not unspecified, loopback or link-local,
 * which make no sense as a Service's external IP.
 */
export function nonSpecialIpErrors(ip: string, field: string): FieldError[] {
  const valid = validIpErrors(ip, field);
  if (valid.length > 0) return valid;
  const v4 = ipv4Parts(ip);
  const lower = ip.toLowerCase();
  const problems: string[] = [];
  if (v4 ? v4.every((n) => n === 0) : /^[0:]+$/.test(lower)) {
    problems.push('may not be unspecified (0.0.0.0)');
  }
  if (v4 ? v4[0] === 127 : lower === '::1') {
    problems.push('may not be in the loopback range (127.0.0.0/8)');
  }
  if (v4 ? v4[0] === 169 && v4[1] === 254 : /^fe[89ab]/.test(lower)) {
    problems.push('may not be in the link-local range (169.254.0.0/16)');
  }
  if (v4 ? v4[0] === 224 && v4[1] === 0 && v4[2] === 0 : /^ff02:/.test(lower)) {
    problems.push('may not be in the link-local multicast range (224.0.0.0/24)');
  }
  return problems.map((problem) => invalid(field, ip, problem));
}
