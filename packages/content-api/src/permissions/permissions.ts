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

/** Resources users may read (their own or public ones) but only administrators manage. */
export const READ_ONLY_RESOURCES = ['generator', 'bundle', 'payment', 'transaction_log', 'invite_code'] as const;

export const RESOURCES = ['user', ...USER_RESOURCES, ...READ_ONLY_RESOURCES] as const;
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
  ...READ_ONLY_RESOURCES.flatMap((resource) => [`${resource}:read:own` as const, `${resource}:read:public` as const]),
  'user:read:own',
  'user:update:own',
];

export interface PermissionHolder {
  isAdmin: boolean;
  granted: readonly string[];
  revoked: readonly string[];
}

export function effectivePermissions({ granted, revoked }: PermissionHolder): Set<string> {
  const set = new Set<string>([...DEFAULT_PERMISSIONS, ...granted]);
  for (const triple of revoked) set.delete(triple);
  return set;
}

export function can(holder: PermissionHolder, resource: string, operation: Operation, scope: Scope): boolean {
  if (holder.isAdmin) return true;
  return effectivePermissions(holder).has(`${resource}:${operation}:${scope}`);
}
