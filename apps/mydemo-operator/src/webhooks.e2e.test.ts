// Issue 32's "Must show" for the operator, with kubectl 1.34 as the client: on kube-apiserver
// 1.20 (envtest installs the shipped webhook configurations pointed at the test's server)
// and on the in-memory API server, the same scenarios (test/webhook-scenarios.ts) give the
// same answers: an invalid Mydemo refused with the webhook's message, the image defaulted on
// create, a v1alpha1 Mydemo read at v1 and back through the conversion webhook, a certificate
// rotated on disk served without a restart, and with the webhook server stopped
// (failurePolicy Fail) a write failing with kube-apiserver's message.

import {
  kubectlWriter,
  useEnvtestWebhookEnv,
  useInMemoryWebhookEnv,
  webhookScenarios,
} from '../test/webhook-scenarios.ts';

webhookScenarios(
  'kube-apiserver 1.20, written with kubectl',
  useEnvtestWebhookEnv((kubeconfigPath) => kubectlWriter(kubeconfigPath)),
);

webhookScenarios(
  'the in-memory API server, written with kubectl',
  useInMemoryWebhookEnv((server) => kubectlWriter(server.kubeconfigPath)),
);
