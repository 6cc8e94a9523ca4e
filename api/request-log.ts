// Request lines of the device routes (/device/*: REST devices, M3DA over HTTP) at debug: every device writes two
// lines per exchange, and a small fleet polling every few seconds buried everything else of the default log (about
// 10,000 lines in 5 minutes from 20 devices). Failures of those requests stay at their own level (error).
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'

const isDeviceRoute = (req: FastifyRequest): boolean => req.url.startsWith('/device/')

export class RequestLogController extends LogController {
  override incomingRequest (request: FastifyRequest, reply: FastifyReply): void {
    if (!isDeviceRoute(request)) { super.incomingRequest(request, reply); return }
    request.log.debug({ req: request }, 'incoming request')
  }

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error != null || !isDeviceRoute(request)) { super.requestCompleted(error, request, reply); return }
    reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed')
  }
}
