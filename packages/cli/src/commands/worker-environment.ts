import { APPROVAL_KEY_ENV } from '@agate/core/internal';

/** The environment `agate worker` reads (its `--help` lists it). */
export const WORKER_ENVIRONMENT: ReadonlyArray<readonly [string, string]> = [
  ['DATABASE_URL', 'the runs database, when --store is not given (postgres://user@host:port/db)'],
  [
    APPROVAL_KEY_ENV,
    "the shared key decisions are signed with: the runs check them with it (the agents' tools never see it)",
  ],
  [
    'AGATE_APPROVAL_PUBLIC_KEY',
    'the public key decisions are signed for (agate keys new): the runs accept only those',
  ],
  ['(the agents file’s own)', 'what its models read: OPENAI_API_KEY, AGATE_BASE_URL, …'],
];
