import type { FastifyReply } from 'fastify'

/** docs/api.md: "empty 200 response" — no body at all. */
export async function sendEmpty (reply: FastifyReply): Promise<FastifyReply> {
  return await reply.status(200).send()
}
