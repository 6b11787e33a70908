// Verifies each delivery given on stdin with the Standard Webhooks library, as a receiver
// on Node does, and prints for each the notice it verified or why it was refused.
import { Webhook, WebhookVerificationError } from "standardwebhooks";

type Delivery = { secret: string; headers: Record<string, string>; body: string };
type Outcome = { notice: unknown } | { refused: string };

let input = "";
for await (const chunk of process.stdin) input += String(chunk);
const outcomes: Outcome[] = (JSON.parse(input) as Delivery[]).map(({ secret, headers, body }) => {
  try {
    return { notice: new Webhook(secret).verify(Buffer.from(body, "base64"), headers) };
  } catch (error) {
    if (error instanceof WebhookVerificationError) return { refused: error.message };
    throw error;
  }
});
console.log(JSON.stringify(outcomes));
