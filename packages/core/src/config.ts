import { Ajv, type JSONSchemaType } from 'ajv';
import { OUTBOUND_ALLOW_PATTERN } from './outbound/address-policy.ts';
import { WORKLOADS } from './workloads.ts';

const workloadName = `(all|${WORKLOADS.join('|')})`;
const WORKLOADS_PATTERN = `^ *${workloadName}( *, *${workloadName})* *$`;

/**
 * Process configuration, read once from environment variables and validated at start.
 * A wrong value stops the process with a message that names the variable, so an operator
 * never finds out about a typo at the first request that needs it.
 */
export interface Config {
  NODE_ENV: 'development' | 'production' | 'test';
  LOG_LEVEL: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
  /** Unset in development: `muse-server dev` starts an embedded Postgres. */
  DATABASE_URL?: string;
  /**
   * Straight to Postgres when DATABASE_URL goes through a pooler in transaction mode (PgBouncer):
   * what needs a session of its own uses it, the event bus's LISTEN connection and the
   * migrations' advisory lock. Unset: DATABASE_URL.
   */
  DATABASE_DIRECT_URL?: string;
  /** Unset in development: `muse-server dev` starts a Temporal dev server. */
  TEMPORAL_ADDRESS?: string;
  TEMPORAL_NAMESPACE: string;
  TEMPORAL_TASK_QUEUE: string;
  /**
   * Connect to Temporal over TLS. Implied by any TEMPORAL_TLS_* file or TEMPORAL_API_KEY; without
   * TEMPORAL_TLS_CA_FILE the server's certificate is checked against the system's roots.
   */
  TEMPORAL_TLS: boolean;
  /** PEM file of the CA that signed the Temporal frontend's certificate (a private CA). */
  TEMPORAL_TLS_CA_FILE?: string;
  /** The name the frontend's certificate is checked against (and sent as SNI) when it is not the address's host. */
  TEMPORAL_TLS_SERVER_NAME?: string;
  /** mTLS: PEM files of this process's client certificate and its key (both or neither). */
  TEMPORAL_TLS_CERT_FILE?: string;
  TEMPORAL_TLS_KEY_FILE?: string;
  /** API key sent as `Authorization: Bearer …` on every call (Temporal Cloud); turns TLS on. Never logged. */
  TEMPORAL_API_KEY?: string;
  TEMPORAL_CLI_PATH?: string;
  /** Port of the Temporal Web UI of the dev server `muse-server dev` starts (0: headless). */
  MUSE_TEMPORAL_UI_PORT: number;
  /**
   * API processes: the longest a request waits for Temporal to start, signal or cancel a
   * workflow before it counts Temporal as unavailable.
   */
  MUSE_TEMPORAL_CALL_TIMEOUT_MS: number;
  MUSE_HOST: string;
  MUSE_CONTENT_PORT: number;
  MUSE_CHAT_PORT: number;
  /** Prometheus `/metrics` of each process, on MUSE_HOST; the API ports do not serve it. */
  MUSE_CONTENT_METRICS_PORT: number;
  MUSE_CHAT_METRICS_PORT: number;
  MUSE_WORKER_METRICS_PORT: number;
  /** Worker processes: the workloads served (workloads.ts), comma-separated, or `all`. */
  MUSE_WORKER_WORKLOADS: string;
  /** Worker processes: workflow and activity tasks run at once, per workload (unset: Temporal's defaults). */
  MUSE_WORKER_WORKFLOW_SLOTS?: number;
  MUSE_WORKER_ACTIVITY_SLOTS?: number;
  /**
   * Worker processes: activities the delivery queue's worker runs at once (not
   * MUSE_WORKER_ACTIVITY_SLOTS). Each scheduled message due within MUSE_DELIVERY_WAKE_EARLY_SECONDS
   * holds one while it waits for its time.
   */
  MUSE_WORKER_DELIVERY_SLOTS: number;
  /** Worker processes: a directory `muse-server bundle-workflows` wrote; the worker loads its bundle instead of bundling at start. */
  MUSE_WORKFLOW_BUNDLE_DIR?: string;
  /**
   * Worker processes: how long a workflow's next task waits for the worker that ran its last one
   * (which holds its state in memory) before any worker may take it; after a worker dies, its
   * workflows go on elsewhere after this long. Temporal's default.
   */
  MUSE_WORKER_STICKY_TIMEOUT_MS: number;
  /** Scheduled messages: how long before its time a delivery is handed to the worker, which waits for the instant. */
  MUSE_DELIVERY_WAKE_EARLY_SECONDS: number;
  /**
   * Scheduled messages: how long a delivery waiting in a worker may go without a heartbeat before
   * Temporal retries it elsewhere (the worker died). Fixed when the message's workflow starts.
   */
  MUSE_DELIVERY_HEARTBEAT_TIMEOUT_MS: number;
  /** Where development state (embedded Postgres data, generated secrets, files) lives. */
  MUSE_DATA_DIR: string;
  /** How long SIGTERM waits for in-flight requests before closing connections. */
  MUSE_SHUTDOWN_TIMEOUT_MS: number;
  /** API processes: the longest one SQL statement (or an idle pause inside a transaction) may take. */
  MUSE_DB_STATEMENT_TIMEOUT_MS: number;
  /** API processes: how long a request waits for a pooled database connection before 503. */
  MUSE_DB_ACQUIRE_TIMEOUT_MS: number;
  /**
   * Database connections one process's pool opens at most (unset: core's default, 10). Postgres
   * (or PgBouncer) sees up to pods × this, plus each process's LISTEN connection of the bus.
   */
  MUSE_DB_POOL_MAX?: number;
  /**
   * DATABASE_URL goes through a pooler in transaction mode (PgBouncer before 1.21): statements are
   * never named prepared ones, which such a pooler cannot route to the connection that holds them.
   */
  MUSE_DB_TRANSACTION_POOLER: boolean;
  /**
   * Which peers may tell the client's address in X-Forwarded-For (per-address login and code
   * limits depend on it): `false`, `true` (anyone: only behind a proxy that overwrites the
   * header), a hop count, or a comma-separated list of addresses, subnets and the names
   * loopback, linklocal, uniquelocal. Default: nobody (the peer's address is the client's); behind
   * an ingress, name its range.
   */
  MUSE_TRUST_PROXY: string;
  /** HS256 secret of bearer tokens; changing it and restarting invalidates every token. Development keeps one under MUSE_DATA_DIR. */
  MUSE_JWT_SECRET?: string;
  MUSE_JWT_TTL_SECONDS: number;
  /** Where uploaded and generated file contents are kept (local-disk storage). Default: MUSE_DATA_DIR/files. */
  MUSE_STORAGE_DIR?: string;
  /** YAML file applied idempotently when the content API starts: administrators, code providers, server-config values. */
  MUSE_BOOTSTRAP_FILE?: string;
  /** Messaging API: answer POST /dev_fetch_api_key (never in production, whatever this says). */
  MUSE_CHAT_DEV_ENDPOINTS: boolean;
  /** Messaging API: the root host; `<subdomain>.<root>` selects an organization, as in Zulip. */
  MUSE_CHAT_REALM_HOST: string;
  /** Messaging API: the organization (subdomain, '' for the root one) served on an IP address or localhost. */
  MUSE_CHAT_DEFAULT_REALM: string;
  /** Messaging API: how long GET /events waits before answering with a heartbeat. */
  MUSE_CHAT_HEARTBEAT_MS: number;
  /** Messaging API: an event queue not polled for this long is deleted. */
  MUSE_CHAT_QUEUE_IDLE_MS: number;
  /** How often the messaging API starts outgoing-webhook deliveries still unstarted after as long (a crash, Temporal away, a scheduled message). */
  MUSE_CHAT_WEBHOOK_SWEEP_MS: number;
  /**
   * Zulip's OUTGOING_WEBHOOK_TIMEOUT_SECONDS: how long a bot server has to answer an outgoing
   * webhook. Fixed, with the attempt's own bound, when the trigger's workflow starts.
   */
  MUSE_CHAT_WEBHOOK_TIMEOUT_SECONDS: number;
  /** Messaging API: event queues one user may hold; registering another evicts the oldest. */
  MUSE_CHAT_MAX_QUEUES_PER_USER: number;
  /** The bus processes announce events on after commit (chat wake-ups, conversation messages, file statuses): `postgres` (LISTEN/NOTIFY) or `redis` (Streams). */
  MUSE_EVENT_BUS: 'postgres' | 'redis';
  /** Redis, when MUSE_EVENT_BUS is `redis`: e.g. redis://redis:6379. */
  MUSE_REDIS_URL?: string;
  /** Messaging API: failed password logins allowed per user and window before 429. */
  MUSE_CHAT_AUTH_ATTEMPTS: number;
  MUSE_CHAT_AUTH_WINDOW_SECONDS: number;
  /** Messaging API: password attempts allowed per client address and window, over all accounts. */
  MUSE_CHAT_AUTH_ADDRESS_ATTEMPTS: number;
  /** Messaging API: writes (POST, PATCH, PUT, DELETE) one user may make per window before 429, as Zulip's `api_by_user`; 0: unlimited. */
  MUSE_CHAT_USER_WRITES: number;
  MUSE_CHAT_USER_WRITES_WINDOW_SECONDS: number;
  /** Content API: payment orders one user may hold open (pending, unexpired) at once. */
  MUSE_PAYMENT_MAX_OPEN_ORDERS: number;
  /** Payments: the longest one call to the payment provider may take (an order, a query, a refund). */
  MUSE_PAYMENT_PROVIDER_TIMEOUT_MS: number;
  /** Payments: the longest pause between the reconciliation's looks at a pending order (and between its retries while the provider does not answer). */
  MUSE_PAYMENT_RECONCILE_MAX_WAIT_MS: number;
  /** Payments: the longest pause between a pending refund's attempts while the provider does not answer. */
  MUSE_PAYMENT_REFUND_RETRY_MAX_MS: number;
  /** Messaging API: whether the server allows web-public channels at all. */
  MUSE_CHAT_WEB_PUBLIC_STREAMS: boolean;
  /** Messaging API: the address clients reach (`realm_url`); unset: the request's own origin. */
  MUSE_CHAT_EXTERNAL_URL?: string;
  /** Base URL clients reach the content API at, for absolute download links; unset: links are relative (absolute for loopback callers). */
  MUSE_PUBLIC_URL?: string;
  /** How long a file's signed download link stays valid. */
  MUSE_DOWNLOAD_URL_TTL_SECONDS: number;
  /** S3-compatible object storage (MinIO, R2, AWS...): set endpoint and bucket to keep file contents there instead of on local disk. */
  MUSE_S3_ENDPOINT?: string;
  /** The bucket that holds the file contents (objects are named by file id). */
  MUSE_S3_BUCKET?: string;
  /** Region used in the request signature (SigV4); most S3-compatible stores accept us-east-1. */
  MUSE_S3_REGION: string;
  /** Credentials of the bucket; required when MUSE_S3_ENDPOINT is set. */
  MUSE_S3_ACCESS_KEY_ID?: string;
  MUSE_S3_SECRET_ACCESS_KEY?: string;
  /** Optional key prefix inside the bucket, so several installations can share one. */
  MUSE_S3_PREFIX?: string;
  /** Conversation channel: largest client frame accepted (bytes); a bigger one closes the socket with 1009. */
  MUSE_WS_MAX_FRAME_BYTES: number;
  /** Conversation channel: client frames one socket may send per 10-second window before `rate_limited`. */
  MUSE_WS_RATE_LIMIT: number;
  /** Conversation channel: open sockets one account may hold on one process. */
  MUSE_WS_MAX_SOCKETS_PER_USER: number;
  /** Conversation channel: interval of the liveness ping; a socket silent for two intervals is dropped. */
  MUSE_WS_HEARTBEAT_MS: number;
  /** Conversation sockets: connections (admitted or not, both transports) one client address may hold on one process. */
  MUSE_WS_MAX_SOCKETS_PER_ADDRESS: number;
  /** Conversation sockets: connections not yet admitted (token and conversation unchecked) one process holds at once. */
  MUSE_WS_MAX_PENDING: number;
  /** Conversation sockets: how long a socket.io connection may stay without an admitted namespace. */
  MUSE_WS_ADMISSION_TIMEOUT_MS: number;
  /**
   * Hosts (`api.example.com`, `*.example.com`), addresses and CIDR ranges that outbound calls
   * (generation upstreams, code providers) may reach although they are loopback, private,
   * link-local or otherwise internal. `muse-server dev` allows loopback when unset.
   */
  MUSE_OUTBOUND_ALLOW: string;
  /**
   * Keys that seal stored secrets (AES-256-GCM): comma-separated base64 of 32 bytes each; the
   * first seals, all open. `muse-server dev` keeps one under MUSE_DATA_DIR. Never logged.
   */
  MUSE_SECRETS_KEY?: string;
  /**
   * Mobile push: `none`, `direct` (APNs and/or FCM with this server's own credentials), `bouncer`
   * (Zulip's push bouncer) or `log` (development: logs what it would send; refused in production).
   */
  MUSE_PUSH_SENDER: 'none' | 'direct' | 'bouncer' | 'log';
  /** APNs base URL (the sandbox is https://api.sandbox.push.apple.com). */
  MUSE_PUSH_APNS_URL: string;
  /** APNs token auth: the .p8 signing key file, its key id and the Apple team id. */
  MUSE_PUSH_APNS_KEY_FILE?: string;
  MUSE_PUSH_APNS_KEY_ID?: string;
  MUSE_PUSH_APNS_TEAM_ID?: string;
  /** FCM HTTP v1: the Google service-account JSON file (client_email, private_key, token_uri, project_id). */
  MUSE_PUSH_FCM_CREDENTIALS_FILE?: string;
  MUSE_PUSH_FCM_URL: string;
  /** Zulip push bouncer this server is registered with, and its registration (server UUID, API key). */
  MUSE_PUSH_BOUNCER_URL: string;
  MUSE_PUSH_BOUNCER_SERVER_UUID?: string;
  MUSE_PUSH_BOUNCER_API_KEY?: string;
  /** Video calls: a self-hosted Jitsi Meet server. */
  MUSE_VIDEO_JITSI_URL?: string;
  /** Video calls: a BigBlueButton server's API base (…/bigbluebutton/) and its shared secret. */
  MUSE_VIDEO_BBB_URL?: string;
  MUSE_VIDEO_BBB_SECRET?: string;
  /** Video calls: a Zoom OAuth app (per-user authorization) and Zoom's OAuth and API base URLs. */
  MUSE_VIDEO_ZOOM_CLIENT_ID?: string;
  MUSE_VIDEO_ZOOM_CLIENT_SECRET?: string;
  MUSE_VIDEO_ZOOM_OAUTH_URL: string;
  MUSE_VIDEO_ZOOM_API_URL: string;
}

const schema: JSONSchemaType<Config> = {
  type: 'object',
  properties: {
    NODE_ENV: { type: 'string', enum: ['development', 'production', 'test'], default: 'development' },
    LOG_LEVEL: {
      type: 'string',
      enum: ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'],
      default: 'info',
    },
    DATABASE_URL: { type: 'string', pattern: '^postgres(ql)?://', nullable: true },
    DATABASE_DIRECT_URL: { type: 'string', pattern: '^postgres(ql)?://', nullable: true },
    TEMPORAL_ADDRESS: { type: 'string', pattern: '^[^\\s:]+:\\d+$', nullable: true },
    TEMPORAL_NAMESPACE: { type: 'string', minLength: 1, default: 'default' },
    TEMPORAL_TASK_QUEUE: { type: 'string', minLength: 1, default: 'muse' },
    TEMPORAL_TLS: { type: 'boolean', default: false },
    TEMPORAL_TLS_CA_FILE: { type: 'string', minLength: 1, nullable: true },
    TEMPORAL_TLS_SERVER_NAME: { type: 'string', minLength: 1, nullable: true },
    TEMPORAL_TLS_CERT_FILE: { type: 'string', minLength: 1, nullable: true },
    TEMPORAL_TLS_KEY_FILE: { type: 'string', minLength: 1, nullable: true },
    TEMPORAL_API_KEY: { type: 'string', minLength: 1, nullable: true },
    TEMPORAL_CLI_PATH: { type: 'string', nullable: true },
    MUSE_TEMPORAL_UI_PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 8233 },
    MUSE_TEMPORAL_CALL_TIMEOUT_MS: { type: 'integer', minimum: 100, default: 10000 },
    MUSE_HOST: { type: 'string', minLength: 1, default: '0.0.0.0' },
    MUSE_CONTENT_PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 8080 },
    MUSE_CHAT_PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 8081 },
    MUSE_CONTENT_METRICS_PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 9464 },
    MUSE_CHAT_METRICS_PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 9465 },
    MUSE_WORKER_METRICS_PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 9466 },
    MUSE_WORKER_WORKLOADS: {
      type: 'string',
      pattern: WORKLOADS_PATTERN,
      default: 'all',
    },
    MUSE_WORKER_WORKFLOW_SLOTS: { type: 'integer', minimum: 1, nullable: true },
    MUSE_WORKER_ACTIVITY_SLOTS: { type: 'integer', minimum: 1, nullable: true },
    MUSE_WORKER_DELIVERY_SLOTS: { type: 'integer', minimum: 1, default: 2000 },
    MUSE_WORKFLOW_BUNDLE_DIR: { type: 'string', minLength: 1, nullable: true },
    MUSE_WORKER_STICKY_TIMEOUT_MS: { type: 'integer', minimum: 100, default: 10000 },
    MUSE_DELIVERY_WAKE_EARLY_SECONDS: { type: 'integer', minimum: 0, maximum: 3600, default: 30 },
    MUSE_DELIVERY_HEARTBEAT_TIMEOUT_MS: { type: 'integer', minimum: 1000, default: 30000 },
    MUSE_DATA_DIR: { type: 'string', minLength: 1, default: '.muse' },
    MUSE_SHUTDOWN_TIMEOUT_MS: { type: 'integer', minimum: 0, default: 10000 },
    MUSE_DB_STATEMENT_TIMEOUT_MS: { type: 'integer', minimum: 100, default: 15000 },
    MUSE_DB_ACQUIRE_TIMEOUT_MS: { type: 'integer', minimum: 100, default: 5000 },
    MUSE_DB_POOL_MAX: { type: 'integer', minimum: 1, maximum: 1000, nullable: true },
    MUSE_DB_TRANSACTION_POOLER: { type: 'boolean', default: false },
    MUSE_TRUST_PROXY: {
      type: 'string',
      pattern: '^[0-9a-zA-Z.:/, ]+$',
      default: 'false',
    },
    MUSE_JWT_SECRET: { type: 'string', minLength: 32, nullable: true },
    MUSE_JWT_TTL_SECONDS: { type: 'integer', minimum: 60, default: 7 * 24 * 3600 },
    MUSE_STORAGE_DIR: { type: 'string', minLength: 1, nullable: true },
    MUSE_BOOTSTRAP_FILE: { type: 'string', minLength: 1, nullable: true },
    MUSE_CHAT_DEV_ENDPOINTS: { type: 'boolean', default: false },
    MUSE_CHAT_REALM_HOST: { type: 'string', minLength: 1, default: 'localhost' },
    MUSE_CHAT_DEFAULT_REALM: { type: 'string', default: '' },
    MUSE_CHAT_HEARTBEAT_MS: { type: 'integer', minimum: 10, default: 60000 },
    MUSE_CHAT_QUEUE_IDLE_MS: { type: 'integer', minimum: 1000, default: 600000 },
    MUSE_CHAT_WEBHOOK_SWEEP_MS: { type: 'integer', minimum: 100, default: 60000 },
    MUSE_CHAT_WEBHOOK_TIMEOUT_SECONDS: { type: 'integer', minimum: 1, maximum: 600, default: 10 },
    MUSE_CHAT_MAX_QUEUES_PER_USER: { type: 'integer', minimum: 1, default: 50 },
    MUSE_EVENT_BUS: { type: 'string', enum: ['postgres', 'redis'], default: 'postgres' },
    MUSE_REDIS_URL: { type: 'string', pattern: '^rediss?://', nullable: true },
    MUSE_CHAT_AUTH_ATTEMPTS: { type: 'integer', minimum: 1, default: 5 },
    MUSE_CHAT_AUTH_WINDOW_SECONDS: { type: 'integer', minimum: 1, default: 1800 },
    MUSE_CHAT_AUTH_ADDRESS_ATTEMPTS: { type: 'integer', minimum: 1, default: 50 },
    MUSE_CHAT_USER_WRITES: { type: 'integer', minimum: 0, default: 200 },
    MUSE_CHAT_USER_WRITES_WINDOW_SECONDS: { type: 'integer', minimum: 1, default: 60 },
    MUSE_PAYMENT_MAX_OPEN_ORDERS: { type: 'integer', minimum: 1, default: 5 },
    MUSE_PAYMENT_PROVIDER_TIMEOUT_MS: { type: 'integer', minimum: 100, default: 30000 },
    MUSE_PAYMENT_RECONCILE_MAX_WAIT_MS: { type: 'integer', minimum: 100, default: 60000 },
    MUSE_PAYMENT_REFUND_RETRY_MAX_MS: { type: 'integer', minimum: 100, default: 600000 },
    MUSE_CHAT_WEB_PUBLIC_STREAMS: { type: 'boolean', default: false },
    MUSE_CHAT_EXTERNAL_URL: { type: 'string', pattern: '^https?://[^/?#]+/?$', nullable: true },
    MUSE_PUBLIC_URL: { type: 'string', pattern: '^https?://', nullable: true },
    MUSE_DOWNLOAD_URL_TTL_SECONDS: { type: 'integer', minimum: 1, default: 3600 },
    MUSE_S3_ENDPOINT: { type: 'string', pattern: '^https?://', nullable: true },
    MUSE_S3_BUCKET: { type: 'string', minLength: 1, nullable: true },
    MUSE_S3_REGION: { type: 'string', minLength: 1, default: 'us-east-1' },
    MUSE_S3_ACCESS_KEY_ID: { type: 'string', minLength: 1, nullable: true },
    MUSE_S3_SECRET_ACCESS_KEY: { type: 'string', minLength: 1, nullable: true },
    MUSE_S3_PREFIX: { type: 'string', nullable: true },
    MUSE_WS_MAX_FRAME_BYTES: { type: 'integer', minimum: 256, default: 65536 },
    MUSE_WS_RATE_LIMIT: { type: 'integer', minimum: 1, default: 30 },
    MUSE_WS_MAX_SOCKETS_PER_USER: { type: 'integer', minimum: 1, default: 20 },
    MUSE_WS_HEARTBEAT_MS: { type: 'integer', minimum: 100, default: 25000 },
    MUSE_WS_MAX_SOCKETS_PER_ADDRESS: { type: 'integer', minimum: 1, default: 256 },
    MUSE_WS_MAX_PENDING: { type: 'integer', minimum: 1, default: 512 },
    MUSE_WS_ADMISSION_TIMEOUT_MS: { type: 'integer', minimum: 100, default: 10000 },
    MUSE_OUTBOUND_ALLOW: { type: 'string', pattern: OUTBOUND_ALLOW_PATTERN, default: '' },
    MUSE_SECRETS_KEY: { type: 'string', pattern: '^[A-Za-z0-9+/=, ]+$', nullable: true },
    // Messaging API: mobile push senders and video-call providers (issue 12).
    MUSE_PUSH_SENDER: { type: 'string', enum: ['none', 'direct', 'bouncer', 'log'], default: 'none' },
    MUSE_PUSH_APNS_URL: { type: 'string', pattern: '^https?://', default: 'https://api.push.apple.com' },
    MUSE_PUSH_APNS_KEY_FILE: { type: 'string', minLength: 1, nullable: true },
    MUSE_PUSH_APNS_KEY_ID: { type: 'string', minLength: 1, nullable: true },
    MUSE_PUSH_APNS_TEAM_ID: { type: 'string', minLength: 1, nullable: true },
    MUSE_PUSH_FCM_CREDENTIALS_FILE: { type: 'string', minLength: 1, nullable: true },
    MUSE_PUSH_FCM_URL: { type: 'string', pattern: '^https?://', default: 'https://fcm.googleapis.com' },
    MUSE_PUSH_BOUNCER_URL: { type: 'string', pattern: '^https?://', default: 'https://push.zulipchat.com' },
    MUSE_PUSH_BOUNCER_SERVER_UUID: { type: 'string', minLength: 1, nullable: true },
    MUSE_PUSH_BOUNCER_API_KEY: { type: 'string', minLength: 1, nullable: true },
    MUSE_VIDEO_JITSI_URL: { type: 'string', pattern: '^https?://', nullable: true },
    MUSE_VIDEO_BBB_URL: { type: 'string', pattern: '^https?://', nullable: true },
    MUSE_VIDEO_BBB_SECRET: { type: 'string', minLength: 1, nullable: true },
    MUSE_VIDEO_ZOOM_CLIENT_ID: { type: 'string', minLength: 1, nullable: true },
    MUSE_VIDEO_ZOOM_CLIENT_SECRET: { type: 'string', minLength: 1, nullable: true },
    MUSE_VIDEO_ZOOM_OAUTH_URL: { type: 'string', pattern: '^https?://', default: 'https://zoom.us' },
    MUSE_VIDEO_ZOOM_API_URL: { type: 'string', pattern: '^https?://', default: 'https://api.zoom.us' },
  },
  required: [],
  // A client certificate is useless without its key, and the other way round.
  dependencies: {
    TEMPORAL_TLS_CERT_FILE: ['TEMPORAL_TLS_KEY_FILE'],
    TEMPORAL_TLS_KEY_FILE: ['TEMPORAL_TLS_CERT_FILE'],
  },
  additionalProperties: false,
};

const validate = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true }).compile(schema);

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads and validates the configuration; throws a ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, string> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  if (validate(raw)) return raw;
  const problems = (validate.errors ?? []).map((error) => {
    const name = error.instancePath.slice(1);
    // A rule between variables (`dependencies`) names them in its message.
    return name ? `${name}=${JSON.stringify(env[name])}: ${error.message}` : `${error.message}`;
  });
  throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
}
