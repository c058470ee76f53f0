import type { ResourceDeclaration } from '../define.ts';
import { bundle } from './bundle.ts';
import { canvas } from './canvas.ts';
import { character } from './character.ts';
import { conversation } from './conversation.ts';
import { favorite } from './favorite.ts';
import { inviteCode } from './invite-code.ts';
import { nodeGroup } from './node-group.ts';
import { payment } from './payment.ts';
import { project } from './project.ts';
import { skill } from './skill.ts';
import { transactionLog } from './transaction-log.ts';
import { userCharacterConfig } from './user-character-config.ts';

/** Every resource served by the generic mechanism; add a declaration here to add a resource. */
export const RESOURCE_DECLARATIONS: readonly ResourceDeclaration[] = [
  character,
  userCharacterConfig,
  conversation,
  project,
  canvas,
  skill,
  nodeGroup,
  favorite,
  bundle,
  payment,
  transactionLog,
  inviteCode,
];
