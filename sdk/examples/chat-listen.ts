// Prints the next messages the user receives, then stops: node chat-listen.ts 5
// Environment: MUSE_CHAT_URL (messaging API), MUSE_EMAIL and MUSE_API_KEY (the user's).
import { createChatClient } from '@muse/sdk';

const wanted = Number(process.argv[2] ?? 1);
const chat = createChatClient({
  baseUrl: process.env.MUSE_CHAT_URL!,
  email: process.env.MUSE_EMAIL!,
  apiKey: process.env.MUSE_API_KEY!,
});
let seen = 0;
const events = chat.events({ event_types: ['message'], onRegister: () => console.log('listening') });
for await (const event of events) {
  const message = event.message as { sender_full_name: string; content: string };
  console.log(`${message.sender_full_name}: ${message.content}`);
  if (++seen === wanted) break; // leaving the loop deletes the event queue
}
