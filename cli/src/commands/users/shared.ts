import type { ContentComponents } from '@muse/sdk';
import type { Column } from '../../io/output.ts';

export type User = ContentComponents['schemas']['User'];

export const USER_COLUMNS: Column<User>[] = [
  { header: 'ID', value: (u) => u.id },
  { header: 'PHONE', value: (u) => u.phone },
  { header: 'NICKNAME', value: (u) => u.nickname },
  { header: 'ACTIVE', value: (u) => (u.is_active ? 'yes' : 'banned') },
  { header: 'ADMIN', value: (u) => (u.is_admin ? 'yes' : '') },
  { header: 'BALANCE', value: (u) => u.balance },
  { header: 'CREATED', value: (u) => u.created_at },
];
