// The kubeconfig file format, as client-go's `tools/clientcmd/api/v1` types: the field names
// are the file's own (kebab-case, `tokenFile` and `apiVersion` as the Go JSON tags spell
// them), so a parsed kubeconfig reads like the YAML it came from.

/** A kubeconfig file, as client-go's `clientcmd/api/v1.Config`. Lists are never absent once parsed. */
export interface Kubeconfig {
  /** `Config`. */
  kind?: string;
  /** `v1`. */
  apiVersion?: string;
  /** kubectl preferences; kubets does not use them. */
  preferences?: KubeconfigPreferences;
  /** The API servers, by name. */
  clusters: KubeconfigNamedCluster[];
  /** The credentials, by name. */
  users: KubeconfigNamedAuthInfo[];
  /** Named pairs of a cluster and a user (and a default namespace). */
  contexts: KubeconfigNamedContext[];
  /** The context used when none is asked for; `''` when unset. */
  'current-context': string;
  /** Extra information for tools; kubets does not use it. */
  extensions?: KubeconfigNamedExtension[];
}

/** kubectl's preferences block (`clientcmd/api/v1.Preferences`). */
export interface KubeconfigPreferences {
  /** Whether kubectl colours its output. */
  colors?: boolean;
  /** Extra information for tools. */
  extensions?: KubeconfigNamedExtension[];
}

/** One entry of `clusters` (`clientcmd/api/v1.NamedCluster`). */
export interface KubeconfigNamedCluster {
  /** The name contexts refer to it by. */
  name: string;
  /** How to reach and trust the server. */
  cluster: KubeconfigCluster;
}

/** How to reach an API server (`clientcmd/api/v1.Cluster`). */
export interface KubeconfigCluster {
  /** The server URL, `https://host:port`. */
  server: string;
  /** The name the server certificate is verified against (and sent as SNI). */
  'tls-server-name'?: string;
  /** Skip server certificate verification. */
  'insecure-skip-tls-verify'?: boolean;
  /** A PEM CA bundle file; a relative path is relative to the kubeconfig's directory. */
  'certificate-authority'?: string;
  /** The PEM CA bundle, base64-encoded; the file wins when both are set. */
  'certificate-authority-data'?: string;
  /** An HTTP(S) or SOCKS5 proxy for this cluster; kubets does not use it (docs/fidelity.md). */
  'proxy-url'?: string;
  /** Ask for uncompressed responses; kubets does not ask for compression. */
  'disable-compression'?: boolean;
  /** Extra information for tools. */
  extensions?: KubeconfigNamedExtension[];
}

/** One entry of `users` (`clientcmd/api/v1.NamedAuthInfo`). */
export interface KubeconfigNamedAuthInfo {
  /** The name contexts refer to it by. */
  name: string;
  /** The credentials. */
  user: KubeconfigAuthInfo;
}

/** Credentials for an API server (`clientcmd/api/v1.AuthInfo`). */
export interface KubeconfigAuthInfo {
  /** A PEM client certificate file; relative to the kubeconfig's directory. */
  'client-certificate'?: string;
  /** The PEM client certificate, base64-encoded. */
  'client-certificate-data'?: string;
  /** The PEM private key file of the client certificate. */
  'client-key'?: string;
  /** The PEM private key, base64-encoded. */
  'client-key-data'?: string;
  /** A bearer token. */
  token?: string;
  /** A file holding a bearer token, re-read when it changes; `token` wins when both are set. */
  tokenFile?: string;
  /** The user to impersonate. */
  as?: string;
  /** The UID of the user to impersonate. */
  'as-uid'?: string;
  /** The groups to impersonate. */
  'as-groups'?: string[];
  /** Extra attributes of the impersonated user. */
  'as-user-extra'?: Record<string, string[]>;
  /** Basic-authentication user name. */
  username?: string;
  /** Basic-authentication password. */
  password?: string;
  /** An auth provider (oidc, gcp, azure); run by `@kubernetes/client-node`, an optional peer. */
  'auth-provider'?: KubeconfigAuthProviderConfig;
  /** An exec credential plugin; run by `@kubernetes/client-node`, an optional peer. */
  exec?: KubeconfigExecConfig;
  /** Extra information for tools. */
  extensions?: KubeconfigNamedExtension[];
}

/** An auth provider and its settings (`clientcmd/api/v1.AuthProviderConfig`). */
export interface KubeconfigAuthProviderConfig {
  /** `oidc`, `gcp`, `azure`, ... */
  name: string;
  /** The provider's settings; refreshed tokens are written back here. */
  config?: Record<string, string>;
}

/** An exec credential plugin (`clientcmd/api/v1.ExecConfig`). */
export interface KubeconfigExecConfig {
  /** The program to run; a path with a separator is relative to the kubeconfig's directory. */
  command: string;
  /** Its arguments. */
  args?: string[];
  /** Environment variables added for it. */
  env?: KubeconfigExecEnvVar[];
  /** The `client.authentication.k8s.io` version of the ExecCredential it prints. */
  apiVersion?: string;
  /** Shown when the program cannot be found. */
  installHint?: string;
  /** Pass the cluster's details to the plugin in `KUBERNETES_EXEC_INFO`. */
  provideClusterInfo?: boolean;
  /** Whether the plugin may prompt: `Never`, `IfAvailable` or `Always`. */
  interactiveMode?: string;
}

/** An environment variable of an exec plugin (`clientcmd/api/v1.ExecEnvVar`). */
export interface KubeconfigExecEnvVar {
  /** The variable's name. */
  name: string;
  /** Its value. */
  value: string;
}

/** One entry of `contexts` (`clientcmd/api/v1.NamedContext`). */
export interface KubeconfigNamedContext {
  /** The name `current-context` and `--context` refer to it by. */
  name: string;
  /** The cluster, user and namespace. */
  context: KubeconfigContext;
}

/** A cluster, a user and a default namespace (`clientcmd/api/v1.Context`). */
export interface KubeconfigContext {
  /** The name of an entry of `clusters`. */
  cluster: string;
  /** The name of an entry of `users`; none: anonymous. */
  user?: string;
  /** The default namespace. */
  namespace?: string;
  /** Extra information for tools. */
  extensions?: KubeconfigNamedExtension[];
}

/** Extra information for tools (`clientcmd/api/v1.NamedExtension`). */
export interface KubeconfigNamedExtension {
  /** The extension's name. */
  name: string;
  /** Its content, as written. */
  extension: unknown;
}
