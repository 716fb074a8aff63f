export {
  type ConnectionProblem,
  type ConnectionTarget,
  connectionProblem,
  connectionTarget,
  describeConnectionProblem,
  firstLine,
  isConnectionError,
} from './connection-problem.js';
export {
  CreateDatabaseError,
  type CreateDatabaseResult,
  createDatabase,
} from './create-database.js';
export {
  LATEST_MIGRATION,
  MIGRATIONS,
  type MigrateResult,
  type Migration,
} from './migrations.js';
export {
  createPostgresStore,
  DECISION_CHANNEL,
  DEFAULT_SCHEMA,
  type PostgresConnection,
  type PostgresStore,
  type PostgresStoreExtras,
  type PostgresStoreOptions,
  type PostgresTransaction,
} from './postgres-store.js';
export { planTimeline, type StoredWindow, type TimelinePlan } from './timeline-plan.js';
