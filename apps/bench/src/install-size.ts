// The pure part of the install-size measurement (issue 35): which package a file under
// node_modules belongs to, the bytes per package, and the markdown table. No I/O here, so it
// is unit tested; install-size-run.ts packs the tarballs, installs with npm and lists the files.

/** One regular file of the installed tree: its path relative to `node_modules`, `/`-separated. */
export interface InstalledFile {
  path: string;
  bytes: number;
}

/** The bytes of one installed package (every copy of it, when npm nested one). */
export interface PackageSize {
  name: string;
  bytes: number;
  files: number;
}

/** What an install put into `node_modules`. */
export interface InstallSummary {
  totalBytes: number;
  files: number;
  /** Largest first; ties by name. */
  packages: PackageSize[];
}

/** The bucket of files npm keeps for itself directly under a `node_modules` (`.package-lock.json`). */
export const npmMetadata = '(npm metadata)';

/**
 * The package a file belongs to, from its path under `node_modules`: the innermost
 * `node_modules/<name>` or `node_modules/@scope/<name>` it sits in (a nested copy counts for
 * its own name). A file directly under a `node_modules`, or in its `.bin`, is npm's.
 *
 * @throws {Error} for a path that escapes the tree or names no file.
 */
export function packageOfPath(path: string): string {
  const parts = path.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..')) {
    throw new Error(`not a relative path of a file under node_modules: ${JSON.stringify(path)}`);
  }
  // parts[at] is the first segment inside a node_modules folder.
  for (let at = 0; ; ) {
    const first = parts[at] as string;
    if (at === parts.length - 1 || first.startsWith('.')) return npmMetadata;
    const width = first.startsWith('@') ? 2 : 1;
    if (at + width === parts.length) return npmMetadata;
    const name = width === 2 ? `${first}/${parts[at + 1]}` : first;
    const nested = parts.indexOf('node_modules', at + width);
    if (nested < 0 || nested === parts.length - 1) return name;
    at = nested + 1;
  }
}

/** Bytes and files per package, largest first, and the totals. */
export function summarizeInstall(files: readonly InstalledFile[]): InstallSummary {
  const byName = new Map<string, PackageSize>();
  let totalBytes = 0;
  for (const file of files) {
    const name = packageOfPath(file.path);
    const size = byName.get(name) ?? { name, bytes: 0, files: 0 };
    size.bytes += file.bytes;
    size.files += 1;
    byName.set(name, size);
    totalBytes += file.bytes;
  }
  const packages = [...byName.values()].sort(
    (a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name),
  );
  return { totalBytes, files: files.length, packages };
}

const MiB = 2 ** 20;

/** Bytes in MiB with two decimals (`1.50 MB`): the unit of the other tables (MB = MiB). */
export function formatMiB(bytes: number): string {
  return `${(bytes / MiB).toFixed(2)} MB`;
}

/** What the table is about: the package installed and the target it is held to. */
export interface InstallSizeContext {
  /** The package installed, e.g. `@kubets/controller`. */
  installed: string;
  /** The scope whose packages are the project's own, e.g. `@kubets`. */
  ownScope: string;
  /** The target, in bytes (issue 35: 12 MB). */
  limitBytes: number;
  /** How many of the largest packages get a row of their own; the rest share one. */
  top: number;
}

/**
 * The markdown table of an install: the total against the target, the project's own packages
 * and everything else, then the `top` largest packages and one row for the others.
 */
export function installSizeTable(summary: InstallSummary, context: InstallSizeContext): string {
  const sum = (packages: readonly PackageSize[], key: 'bytes' | 'files') =>
    packages.reduce((total, p) => total + p[key], 0);
  const own = summary.packages.filter((p) => p.name.startsWith(`${context.ownScope}/`));
  const others = summary.packages.filter(
    (p) => p.name !== npmMetadata && !p.name.startsWith(`${context.ownScope}/`),
  );
  const metadata = summary.packages.filter((p) => p.name === npmMetadata);
  const row = (what: string, packages: readonly PackageSize[]) =>
    `| ${what} | ${formatMiB(sum(packages, 'bytes'))} | ${sum(packages, 'files')} |`;
  const met = summary.totalBytes <= context.limitBytes ? 'met' : '**not met**';
  const largest = summary.packages.filter((p) => p.name !== npmMetadata);
  const lines = [
    `| node_modules after \`npm install ${context.installed}\` | size | files |`,
    '| --- | ---: | ---: |',
    `| **total** (${summary.totalBytes.toLocaleString('en-US')} bytes; target ≤ ${formatMiB(context.limitBytes)}: ${met}) | **${formatMiB(summary.totalBytes)}** | ${summary.files} |`,
    row(`${context.ownScope} packages (${own.length})`, own),
    row(`other packages (${others.length})`, others),
    ...(metadata.length > 0
      ? [row("npm's own files (`.package-lock.json`, `.bin`)", metadata)]
      : []),
    ...largest.slice(0, context.top).map((p) => row(`\`${p.name}\``, [p])),
  ];
  const rest = largest.slice(context.top);
  if (rest.length > 0) lines.push(row(`${rest.length} smaller packages`, rest));
  return lines.join('\n');
}
