import type { ServerResponse } from 'node:http';

/**
 * Claims a response's body for Node: returns the function that writes it to Node's response
 * (after `serve()` wrote the status and headers), or undefined when its web stream is already
 * being read and the response is to be sent as usual.
 */
export type NodeBodyClaim = () => ((outgoing: ServerResponse) => void) | undefined;

const claims = new WeakMap<Response, NodeBodyClaim>();

/**
 * Marks a streamed response whose body `serve()` may write straight to the socket instead of
 * reading its web stream. The response stays a complete web response for everything else
 * (`app.request()`, other servers); the middleware's headers are taken from it as it leaves the app.
 */
export function withNodeBody(response: Response, claim: NodeBodyClaim): Response {
  claims.set(response, claim);
  return response;
}

/**
 * Sends `response` through its Node writer when it has one: writes the status and headers to
 * `outgoing` and hands over. False when the response is to be sent as usual.
 */
export function sendNodeBody(response: Response, outgoing: ServerResponse): boolean {
  const claim = claims.get(response);
  if (!claim || outgoing.headersSent) return false;
  claims.delete(response);
  const write = claim();
  if (!write) return false;
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  outgoing.writeHead(response.status, headers);
  write(outgoing);
  return true;
}
