import { createServer } from 'node:http';

// The baseline: the least a Node process can do to answer a health check.
const body = JSON.stringify({ status: 'ok' });
createServer((_req, res) => {
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1');
