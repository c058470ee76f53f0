import tseslint from 'typescript-eslint';

// The import directions of ARCHITECTURE.md. The worker and the operator reach an API through the
// subpaths it exports for them (its contract, workflow steps, operator store), never its root
// (the HTTP app and everything behind it), and write its tables only through its functions.
const apiRoots = ['@muse/content-api', '@muse/chat-api'].map((name) => ({
  name,
  message: `Import a subpath of ${name} (generation-contract, workflow-steps, operator-store, ...), not its root.`,
}));
const SQL_WRITE = '/(INSERT\\s+INTO|UPDATE|DELETE\\s+FROM)\\s+(content|chat)\\./i';
const sqlWriteMessage = 'Write content.* and chat.* tables through the owning API package, not from here.';
const NOT_CHAT_API = { regex: '^@muse/chat-api(/|$)', message: 'The two APIs never import each other.' };
const NOT_CONTENT_API = {
  regex: '^@muse/content-api(/|$)',
  message: 'The two APIs never import each other.',
};
const NOT_APP = { regex: '(^|/)app\\.ts$', message: 'Import the context type from context.ts, not app.ts.' };
const NOT_TRANSPORT = {
  regex: '^(\\.\\./)+(http|views)/',
  message: 'The domain imports nothing from http/ or views/.',
};
const NOT_ACTIONS = {
  regex: '^(\\.\\./)+actions/',
  message: 'Queries, access rules and presenters do not call actions (writes that send events).',
};
const NOT_PRESENTERS = {
  regex: '^(\\.\\./)+presenters/',
  message: 'lib/ holds queries and access rules; what builds a wire shape (and reads for it) is a presenter.',
};
// A test reaches helpers of other workspaces by the test-support workspace's name, never by a climb.
const NO_TEST_CLIMB = {
  regex: '^(\\.\\./)+([\\w.-]+/)*test/',
  message: 'Import shared test helpers by name (@muse/test-support/<file>), not by a relative climb.',
};
const NO_EVENTS = {
  regex: '(^|/)events/log\\.ts$',
  importNames: ['sendEvent', 'sendChannelEvent', 'sendEventsPerUser'],
  message: 'A write that sends events is an action (domain/actions/), not a query, rule or presenter.',
};
// A call on the Sequelize handle (`db`, `ctx.db`, `deps.db`, `this.deps.db`), not another object's
// method of the same name (a payment provider's `query` of an order).
const ON_DATABASE = ":matches([callee.object.name='db'], [callee.object.property.name='db'])";
const CONTENT_SQL = [
  {
    selector: `CallExpression[callee.property.name='query']${ON_DATABASE}`,
    message: "Run content-api SQL through @muse/core's rows, one and exec.",
  },
  {
    selector: `CallExpression[callee.property.name='transaction']${ON_DATABASE}`,
    message: "Open content-api transactions with @muse/core's transact().",
  },
];
const ROUTES_ADD = {
  selector: "CallExpression[callee.property.name='add'][callee.object.name='routes']",
  message: 'Declare the handler with route() (http/contract.ts) and its operation in openapi/<area>.yaml.',
};
const NOT_SERVER = {
  regex: '^@muse/(core|content-api|chat-api|temporal|operator|server)(/|$)',
  message: 'The SDK and the CLI reach the platform over HTTP only.',
};

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '.muse/**', '**/dist/**', 'sdk/src/generated/**'],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['temporal/src/**/*.ts', 'packages/operator/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: apiRoots }],
      'no-restricted-syntax': [
        'error',
        { selector: `Literal[value=${SQL_WRITE}]`, message: sqlWriteMessage },
        { selector: `TemplateElement[value.raw=${SQL_WRITE}]`, message: sqlWriteMessage },
      ],
    },
  },
  // Later blocks override earlier ones for the files they match, so a narrower block repeats the
  // wider block's patterns.
  {
    // The two APIs never import each other.
    files: ['packages/content-api/src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NOT_CHAT_API] }] },
  },
  {
    // The app is assembled from the feature modules; none of them imports it back (the context type is context.ts).
    files: ['packages/content-api/src/**/*.ts'],
    ignores: [
      'packages/content-api/src/index.ts',
      // Attaches the sockets beside a built app (its context); app.ts does not import it, so no circle.
      'packages/content-api/src/sockets/attach.ts',
    ],
    rules: { 'no-restricted-imports': ['error', { patterns: [NOT_CHAT_API, NOT_APP] }] },
  },
  {
    // SQL runs through core's sql.ts (rows, one, exec, transact), the one way of ARCHITECTURE.md's
    // "Running SQL": its transact() retries a deadlock and makes the transaction ambient. An
    // endpoint is a resource declaration or a route() bound to openapi/<area>.yaml (ARCHITECTURE.md's
    // "Where a new piece goes"): only those two add handlers to Routes.
    files: ['packages/content-api/src/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...CONTENT_SQL, ROUTES_ADD] },
  },
  {
    // The two endpoint styles themselves.
    files: ['packages/content-api/src/http/contract.ts', 'packages/content-api/src/resources/router.ts'],
    rules: { 'no-restricted-syntax': ['error', ...CONTENT_SQL] },
  },
  {
    files: ['packages/chat-api/src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NOT_CONTENT_API] }] },
  },
  {
    // chat-api's domain holds the rules and state; the transport and the endpoint declarations sit on top of it.
    files: ['packages/chat-api/src/domain/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NOT_CONTENT_API, NOT_TRANSPORT] }] },
  },
  {
    // Inside the domain, actions build on lib/ (queries, access rules, writes that send no events)
    // and presenters/ (wire shapes), not the reverse; only actions send events.
    files: ['packages/chat-api/src/domain/lib/**/*.ts', 'packages/chat-api/src/domain/presenters/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [NOT_CONTENT_API, NOT_TRANSPORT, NOT_ACTIONS, NO_EVENTS] },
      ],
    },
  },
  {
    // ... and lib/ builds on nothing above it: presenters/ build on lib/, not the reverse.
    files: ['packages/chat-api/src/domain/lib/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [NOT_CONTENT_API, NOT_TRANSPORT, NOT_ACTIONS, NO_EVENTS, NOT_PRESENTERS] },
      ],
    },
  },
  {
    files: ['**/test/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_TEST_CLIMB] }] },
  },
  {
    // Events are written by transact()'s pre-commit hook (one lock order, retried on deadlock): a
    // plain Sequelize transaction that sends an event fails at run time, so none may be opened.
    // SQL runs through core's sql.ts (rows, one, exec), the one way of ARCHITECTURE.md's "Running SQL".
    files: ['packages/chat-api/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='transaction']",
          message: "Open chat-api transactions with @muse/core's transact().",
        },
        {
          selector: "CallExpression[callee.property.name='query']",
          message: "Run chat-api SQL through @muse/core's rows, one and exec.",
        },
      ],
    },
  },
  {
    // The SDK and the CLI reach the platform over HTTP only.
    files: ['sdk/src/**/*.ts', 'cli/src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NOT_SERVER] }] },
  },
);
