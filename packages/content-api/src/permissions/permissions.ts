/**
 * The permission model: a permission is a triple `resource:operation:scope`.
 * A user's effective set is the defaults, plus what an administrator granted, minus what was
 * revoked; so a resource added later gets its defaults without a data migration.
 * Administrators hold the wildcard and pass every check.
 */
export const OPERATIONS = ['create', 'read', 'update', 'delete'] as const;
export const SCOPES = ['own', 'public', 'all'] as const;
export type Operation = (typeof OPERATIONS)[number];
export type Scope = (typeof SCOPES)[number];

/** Resources users work with themselves; each gets own CRUD and public read by default. */
export const USER_RESOURCES = [
  'character',
  'user_character_config',
  'conversation',
  'project',
  'canvas',
  'file',
  'skill',
  'node_group',
  'favorite',
  'generation',
] as const;

/**
 * Resources an administrator manages and users may read once published (visibility public).
 * Invite codes are secrets: users redeem a code they know (see invite_redemption) rather than list them.
 */
export const PUBLISHED_RESOURCES = ['generator', 'bundle', 'invite_code'] as const;

/** Records users own but do not edit: a payment is opened by the user and settled by an administrator. */
export const RECORD_RESOURCES = ['payment', 'transaction_log', 'invite_redemption'] as const;

export const RESOURCES = ['user', ...USER_RESOURCES, ...PUBLISHED_RESOURCES, ...RECORD_RESOURCES] as const;
export type Resource = (typeof RESOURCES)[number];

export type PermissionTriple = `${string}:${Operation}:${Scope}`;

const TRIPLE = new RegExp(`^(${RESOURCES.join('|')}):(${OPERATIONS.join('|')}):(${SCOPES.join('|')})$`);

export function isPermissionTriple(value: string): value is PermissionTriple {
  return TRIPLE.test(value);
}

export const DEFAULT_PERMISSIONS: readonly PermissionTriple[] = [
  ...USER_RESOURCES.flatMap((resource) => [
    ...OPERATIONS.map((operation) => `${resource}:${operation}:own` as const),
    `${resource}:read:public` as const,
  ]),
  ...PUBLISHED_RESOURCES.flatMap((resource) => [
    `${resource}:read:own` as const,
    `${resource}:read:public` as const,
  ]),
  // A user opens a pending payment for a bundle and reads their own payments and ledger.
  'payment:create:own',
  'payment:read:own',
  'transaction_log:read:own',
  // Redeeming an invite code creates the caller's redemption; revoke this to stop a user redeeming.
  'invite_redemption:create:own',
  'invite_redemption:read:own',
  'user:read:own',
  'user:update:own',
];

export interface PermissionHolder {
  isAdmin: boolean;
  granted: readonly string[];
  revoked: readonly string[];
}

const DEFAULTS: ReadonlySet<string> = new Set(DEFAULT_PERMISSIONS);

/** Most accounts hold exactly the defaults; their set is built once, not on every check. */
export function effectivePermissions({ granted, revoked }: PermissionHolder): ReadonlySet<string> {
  if (!granted.length && !revoked.length) return DEFAULTS;
  const set = new Set<string>([...DEFAULT_PERMISSIONS, ...granted]);
  for (const triple of revoked) set.delete(triple);
  return set;
}

/**
 * Whether the holder may do `operation` on `resource` in `scope`. Scope `all` belongs to
 * administrators only: a triple `...:all` granted to a non-administrator has no effect.
 */
export function can(holder: PermissionHolder, resource: string, operation: Operation, scope: Scope): boolean {
  if (holder.isAdmin) return true;
  if (scope === 'all') return false;
  return effectivePermissions(holder).has(`${resource}:${operation}:${scope}`);
}
