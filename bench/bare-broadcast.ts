import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';

// The channel bench's baseline: a bare `ws` server in one process that relays every frame to
// all its sockets, with no checks, no storage and no second process.
const server = createServer();
const wss = new WebSocketServer({ server });
wss.on('connection', (socket) => {
  socket.on('message', (data) => {
    for (const client of wss.clients) client.send(data.toString());
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
