/**
 * The bare side's webhook receiver in the drain benchmark: answers every POST 200 and keeps
 * nothing, so the bare worker runs while the sandbox posts the same status webhooks (Meta's
 * work, on this machine too) without anything applying them. Prints its URL.
 */
import { createServer } from 'node:http';

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('ok');
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  console.log(`null receiver listening on http://127.0.0.1:${address.port}`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
