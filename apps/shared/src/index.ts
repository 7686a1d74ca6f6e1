/**
 * Plumbing shared by the kubets example apps, so that each app's `main.ts` holds only what
 * the Go program it mirrors holds: flags (`--kubeconfig`, `--master`, ...), klog-style log
 * lines, finding the cluster (or running a scripted demo on the embedded API server), and
 * stopping cleanly on SIGINT/SIGTERM.
 *
 * @module
 */
export {
  type Cluster,
  type ClusterFlags,
  type ConfigSource,
  connect,
  type Demo,
  type DemoScenario,
  findConfigSource,
} from './cluster.ts';
export {
  type BooleanFlag,
  type Command,
  type CommonFlags,
  clusterFlags,
  duration,
  FlagError,
  type FlagSpec,
  type FlagSpecs,
  type Flags,
  klogFlags,
  logLevel,
  parseCommandLine,
  parseFlags,
  positiveInt,
  type StringFlag,
  severityThreshold,
  usage,
} from './flags.ts';
export {
  callerLocation,
  configureKlog,
  errorMessage,
  fatalOnUncaughtErrors,
  formatHeader,
  handleError,
  type Klog,
  type KlogLoggerOptions,
  type KlogSettings,
  klog,
  klogLogger,
  type LogSink,
  type Severity,
  setLogSink,
  type Verbose,
  verbosity,
} from './klog.ts';
export { LineLog, type LinePattern, type WaitForOptions } from './lines.ts';
export { demoDeployment, demoPod } from './objects.ts';
export { aborted, sleep, stopSignal } from './signals.ts';
