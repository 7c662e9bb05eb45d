// The naming endpoints the console uses (docs/http-api.md).
import { call, getJson } from './api';

export interface ServiceKey {
  serviceName: string;
  groupName: string;
  namespaceId: string;
}

export interface Instance {
  instanceId?: string;
  ip: string;
  port: number;
  weight: number;
  healthy: boolean;
  enabled: boolean;
  ephemeral: boolean;
  clusterName: string;
  metadata: Record<string, string>;
}

export interface ServiceDetail {
  name: string;
  groupName: string;
  protectThreshold: number;
  clusters: { name: string; instanceCount: number; healthyInstanceCount: number }[];
  ephemeralInstanceCount: number;
  persistentInstanceCount: number;
  healthyInstanceCount: number;
}

export function serviceList(namespaceId: string, groupName: string, pageNo: number, pageSize: number) {
  return getJson<{ count: number; doms: string[] }>('/nacos/v1/ns/service/list', { namespaceId, groupName, pageNo, pageSize });
}

export function service(k: ServiceKey) {
  return getJson<ServiceDetail>('/nacos/v1/ns/service', { ...k });
}

/** What keeps an instance: a client's gRPC connection (held on one member), its heartbeats, or the store. */
export interface HeldBy {
  kind: 'grpc' | 'http-beat' | 'persistent';
  node?: string;
  connections?: { connectionId: string; clientAddress: string; agent: string | null }[];
}

export interface CatalogInstance extends Instance {
  heldBy: HeldBy;
}

const CATALOG_PAGE = 1000;

/** Every instance of the service, enabled or not, with what keeps each (the console's catalog view). */
export async function instances(k: ServiceKey): Promise<CatalogInstance[]> {
  const all: CatalogInstance[] = [];
  for (let pageNo = 1; ; pageNo++) {
    const r = await getJson<{ list: CatalogInstance[]; count: number }>('/nacos/v1/ns/catalog/instances', { ...k, pageNo, pageSize: CATALOG_PAGE });
    all.push(...r.list);
    if (r.list.length === 0 || all.length >= r.count) return all;
  }
}

/** Changes only the given fields (PATCH). */
export async function patchInstance(k: ServiceKey, i: { ip: string; port: number; clusterName: string }, fields: { weight?: number; enabled?: boolean }) {
  await call('/nacos/v1/ns/instance', { method: 'PATCH', query: { ...k, ip: i.ip, port: i.port, clusterName: i.clusterName, ...fields } });
}

/** May the caller change this service's instances? An edit of an instance that does not exist: 404 if allowed, 403 if not. */
export function namingWriteProbe(k: ServiceKey) {
  return () => patchInstance(k, { ip: '192.0.2.1', port: 1, clusterName: 'DEFAULT' }, { weight: 1 });
}

export interface Subscriber {
  addrStr: string;
  protocol: 'grpc' | 'udp-push';
  agent: string | null;
  app: string | null;
  cluster: string;
  node: string;
}

/** The service's subscribers on every member (the first page, up to the server's page limit). */
export function subscribers(k: ServiceKey) {
  return getJson<{ subscribers: Subscriber[]; count: number; nodes: { node: string; reachable: boolean }[] }>(
    '/nacos/v1/ns/service/subscribers', { ...k, pageNo: 1, pageSize: 1000 });
}
