import { randomBytes } from 'node:crypto';

/**
 * Message ids in Meta's `wamid.<base64url>` form. A process-wide counter makes them unique
 * within the process (several sandboxes may run in one test process); the random prefix and
 * tail keep ids from two runs from looking alike, as real wamids never repeat.
 */
const PROCESS_PREFIX = randomBytes(6);
let counter = 0;

export function newWamid(): string {
  const id = Buffer.allocUnsafe(16);
  PROCESS_PREFIX.copy(id, 0);
  id.writeUIntBE(++counter, 6, 6);
  randomBytes(4).copy(id, 12);
  return `wamid.${id.toString('base64url')}`;
}
