import { defaultChatReply, type ChatScript } from './fake-openai-server';

/**
 * The fake server's model for Mem0's own extraction requests (mem0ai/oss `Memory.add`): a
 * `json_object` request whose user message lists `## New Messages` as `<role>: <content>` lines
 * is answered with one memory per `user` line, its content verbatim, in the library's
 * `{"memory":[{id,text,attributed_to}]}` shape; Mem0's answer prompt is answered with its first
 * memory's text; anything else gets `defaultChatReply`.
 * Deterministic, so a replay asks and gets the same.
 */
export const fakeMem0Chat: ChatScript = (chat, request) => {
  const body = request.body as { response_format?: { type?: string } };
  const user = chat.messages.find((m) => m.role === 'user')?.content ?? '';
  const section = /## New Messages\n([\s\S]*?)\n\n## /.exec(user)?.[1];
  if (body.response_format?.type !== 'json_object' || section === undefined) {
    // Mem0's answer prompt: the first memory of the JSON lists, without its date and speaker.
    const system = chat.messages.find((m) => m.role === 'system')?.content ?? '';
    const at = system.indexOf('Memories for user');
    if (at < 0) return defaultChatReply(chat);
    const first = /"(.*?)"/.exec(system.slice(at))?.[1];
    return first?.replace(/^.*? \d{4}: /, '').replace(/^[^:]+: /, '') ?? 'unknown';
  }
  const facts = section
    .split('\n')
    .filter((line) => line.startsWith('user: '))
    .map((line) => line.slice('user: '.length));
  return JSON.stringify({
    memory: facts.map((text, i) => ({ id: String(i), text, attributed_to: 'user' })),
  });
};

/** Mem0 extraction requests among a server's chat requests (those with a `## New Messages`). */
export function isMem0Extraction(body: unknown): boolean {
  const b = body as { messages?: Array<{ role: string; content: string }> };
  return (b.messages ?? []).some((m) => m.role === 'user' && m.content.includes('## New Messages'));
}
