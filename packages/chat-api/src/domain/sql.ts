// The database dialect is core's (one for both APIs); chat-api's modules import it from here.
export { rows, one, exec, type Transaction } from '@muse/core';
