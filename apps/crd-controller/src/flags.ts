// The command line of the controller: seed 003's flags (--kubeconfig, --master, --threadiness)
// and the leader-election flags of kube-controller-manager and controller-runtime managers.

import { type Command, positiveInt } from '@kubets-apps/shared';
import { leaderElectionFlags } from './leaderelection.ts';

export const command: Command = {
  name: 'crd-controller',
  summary:
    "seed 003's crddemo: a controller for the Mydemo custom resource (mydemos.crddemo.k8s.io).",
  details: [
    'With --leader-elect, replicas compete for the Lease and only the leader runs the informer and',
    'the workers. A leader that loses the Lease stops its workers and exits with status 255',
    '("leaderelection lost") to be restarted; SIGINT/SIGTERM stops the workers, then releases the',
    'Lease so that another replica takes over at once.',
  ].join('\n'),
};

export const flagSpecs = {
  threadiness: {
    type: 'string',
    default: '2',
    parse: positiveInt,
    description: 'number of workers processing the queue',
  },
  ...leaderElectionFlags,
} as const;
