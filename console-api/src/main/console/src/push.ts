// The push channel (/lodestar/v1/push): a browser cannot set headers on a WebSocket, so the token
// rides in the Sec-WebSocket-Protocol offer ("lodestar.bearer.<token>"), never in the URL; the
// server answers with the protocol "lodestar.push.v1".
import { token } from './api';
import type { ConfigKey } from './config';
import type { ServiceKey } from './naming';

export const PUSH_PROTOCOL = 'lodestar.push.v1';
const BEARER_PREFIX = 'lodestar.bearer.';

export interface Changed extends ConfigKey {
  type: 'changed';
  revision: number;
  md5?: string;
  deleted?: boolean;
}

/**
 * One connection that (re)subscribes with {@code subscribe} each time it opens, hands every message
 * to {@code onMessage}, and reconnects with a growing pause until the returned function is called.
 * {@code onState} hears whether it is subscribed.
 */
function channel(subscribe: () => object, onMessage: (msg: any) => void, onState?: (live: boolean) => void): () => void {
  let closed = false;
  let ws: WebSocket | null = null;
  let retry: number | undefined;
  let backoff = 1000;

  const connect = () => {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const t = token();
    ws = new WebSocket(`${scheme}//${location.host}/lodestar/v1/push`, t ? [PUSH_PROTOCOL, BEARER_PREFIX + t] : [PUSH_PROTOCOL]);
    ws.onopen = () => {
      backoff = 1000;
      ws!.send(JSON.stringify(subscribe()));
    };
    ws.onmessage = (ev) => onMessage(JSON.parse(String(ev.data)));
    ws.onclose = () => {
      onState?.(false);
      if (!closed) {
        retry = window.setTimeout(connect, backoff);
        backoff = Math.min(backoff * 2, 30000);
      }
    };
  };
  connect();
  return () => {
    closed = true;
    window.clearTimeout(retry);
    ws?.close(1000);
  };
}

/**
 * Calls {@code onChange} whenever {@code key} changes; after a reconnect, every change missed
 * meanwhile is sent first (sinceRevision).
 */
export function watchConfig(key: ConfigKey, onChange: (c: Changed) => void, onState?: (live: boolean) => void): () => void {
  let since: number | undefined;
  return channel(
    () => ({ type: 'subscribe', keys: [key], ...(since !== undefined ? { sinceRevision: since } : {}) }),
    (msg) => {
      if (msg.type === 'subscribed') {
        since = msg.revision;
        onState?.(true);
      } else if (msg.type === 'changed') {
        since = Math.max(since ?? 0, msg.revision);
        onChange(msg as Changed);
      }
    },
    onState,
  );
}

/**
 * Calls {@code onChange} whenever the service's instances or spec change, and once each time the
 * subscription is (re)made, since changes while disconnected are not replayed for services.
 */
export function watchService(key: ServiceKey, onChange: () => void, onState?: (live: boolean) => void): () => void {
  return channel(
    () => ({ type: 'subscribe-services', services: [key] }),
    (msg) => {
      if (msg.type === 'services-subscribed') {
        onState?.(true);
        onChange();
      } else if (msg.type === 'service-changed') {
        onChange();
      }
    },
    onState,
  );
}
