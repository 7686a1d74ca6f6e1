import { createPrivateKey, X509Certificate } from 'node:crypto';
import { type FSWatcher, watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createSecureContext } from 'node:tls';
import { type Clock, type Logger, realClock, silentLogger } from '@kubets/apimachinery';

/** A PEM certificate chain and its PEM key, as read from disk. */
export interface CertificatePair {
  /** The certificate (chain), PEM. */
  readonly cert: string;
  /** The private key, PEM. */
  readonly key: string;
}

/** How often a {@link CertWatcher} read its files. */
export interface CertificateReads {
  /** Reads made. */
  total: number;
  /** Reads that failed. */
  errors: number;
}

/** Options of {@link CertWatcher}. */
export interface CertWatcherOptions {
  /** The certificate file. */
  certPath: string;
  /** The key file. */
  keyPath: string;
  /** How often the files are read again, whatever the file system reports (default 10 s). */
  intervalMs?: number | undefined;
  /** Watch the files' directory for changes as well as polling (default `true`). */
  watchFiles?: boolean | undefined;
  /** The clock of the polling timer (tests pass a fake one). */
  clock?: Clock | undefined;
  /** Where reloads and read errors are logged (default: silent). */
  logger?: Logger | undefined;
}

/**
 * Keeps a certificate and key read from files and reads them again when they change
 * (controller-runtime's `certwatcher`): a file-system watch on their directory (which also
 * sees the rename-into-place of a Secret volume update) and a poll every `intervalMs`. A
 * pair that does not load (half-written, mismatched) is logged and the previous one kept.
 */
export class CertWatcher {
  readonly #options: Required<Pick<CertWatcherOptions, 'certPath' | 'keyPath'>> &
    CertWatcherOptions;
  readonly #callbacks = new Set<(pair: CertificatePair) => void>();
  #current: CertificatePair | undefined;
  /** Reads made and failed (controller-runtime's `certwatcher_read_certificate_total`/`_errors_total`). */
  readonly reads: CertificateReads = { total: 0, errors: 0 };

  constructor(options: CertWatcherOptions) {
    if (typeof options?.certPath !== 'string' || typeof options.keyPath !== 'string') {
      throw new TypeError('CertWatcher needs certPath and keyPath');
    }
    this.#options = options;
  }

  /** A watcher whose first read succeeded: rejects naming the file when it cannot be read. */
  static async create(options: CertWatcherOptions): Promise<CertWatcher> {
    const watcher = new CertWatcher(options);
    await watcher.readCertificate();
    return watcher;
  }

  /** The pair last read successfully. */
  get current(): CertificatePair | undefined {
    return this.#current;
  }

  /** Calls `callback` with every new pair (and at once with the current one). */
  onChange(callback: (pair: CertificatePair) => void): () => void {
    this.#callbacks.add(callback);
    if (this.#current !== undefined) callback(this.#current);
    return () => this.#callbacks.delete(callback);
  }

  /**
   * Reads both files; resolves `true` when they hold a new pair (callbacks called), `false`
   * when unchanged. Rejects naming the file or the mismatch, keeping the previous pair.
   */
  async readCertificate(): Promise<boolean> {
    this.reads.total++;
    const { certPath, keyPath } = this.#options;
    let pair: CertificatePair;
    try {
      const [cert, key] = await Promise.all([
        readFile(certPath, 'utf8'),
        readFile(keyPath, 'utf8'),
      ]);
      pair = { cert, key };
      checkKeyMatches(pair);
      // What the listener will load: a pair that passes here serves.
      createSecureContext(pair);
    } catch (error) {
      this.reads.errors++;
      throw new Error(
        `cannot load certificate ${certPath} with key ${keyPath}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    if (this.#current?.cert === pair.cert && this.#current.key === pair.key) return false;
    this.#current = pair;
    (this.#options.logger ?? silentLogger).info('Updated current TLS certificate', {
      cert: certPath,
    });
    for (const callback of this.#callbacks) callback(pair);
    return true;
  }

  /** Watches and polls until `signal` aborts. */
  async start(signal: AbortSignal): Promise<void> {
    const logger = this.#options.logger ?? silentLogger;
    const clock = this.#options.clock ?? realClock;
    const intervalMs = this.#options.intervalMs ?? 10_000;
    const reread = (): void => {
      this.readCertificate().catch((error: unknown) =>
        logger.error('failed to read certificate', { error: (error as Error).message }),
      );
    };
    const watchers: FSWatcher[] = [];
    if (this.#options.watchFiles !== false) {
      const dirs = new Set([dirname(this.#options.certPath), dirname(this.#options.keyPath)]);
      for (const dir of dirs) {
        try {
          const watcher = watch(dir, { persistent: false }, reread);
          watcher.on('error', (error) =>
            logger.error('certificate watch error', { error: error.message }),
          );
          watchers.push(watcher);
        } catch (error) {
          logger.error('cannot watch certificate directory; polling only', {
            dir,
            error: (error as Error).message,
          });
        }
      }
    }
    try {
      while (!signal.aborted) {
        await clock.sleep(intervalMs, signal).catch(() => undefined);
        if (!signal.aborted) reread();
      }
    } finally {
      for (const watcher of watchers) watcher.close();
    }
  }
}

/**
 * Throws unless `pair.key` is the private key of the (first) certificate of `pair.cert`, as Go's
 * `tls.X509KeyPair` checks. Not left to `createSecureContext`: Deno's accepts a key that does
 * not match the certificate, and the server would then fail every handshake.
 */
function checkKeyMatches(pair: CertificatePair): void {
  const certificate = new X509Certificate(pair.cert);
  if (!certificate.checkPrivateKey(createPrivateKey(pair.key))) {
    throw new Error('the private key does not match the certificate');
  }
}
