// Verifies each delivery given on stdin with docs/webhooks.md's TypeScript snippet (copied
// beside this file as verify.ts) and prints what it answered for each.
import { verifyDelivery } from "./verify.js";

type Delivery = { secret: string; headers: Record<string, string>; body: string };

let input = "";
for await (const chunk of process.stdin) input += String(chunk);
const answers = (JSON.parse(input) as Delivery[]).map(({ secret, headers, body }) =>
  verifyDelivery(secret, headers, Buffer.from(body, "base64")),
);
console.log(JSON.stringify(answers));
