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

/** The enabled instances (the list leaves disabled ones out). */
export async function instances(k: ServiceKey): Promise<Instance[]> {
  const r = await getJson<{ hosts: Instance[] }>('/nacos/v1/ns/instance/list', { ...k });
  return r.hosts;
}

/** One instance, enabled or not; null when there is none. */
export async function instance(k: ServiceKey, i: { ip: string; port: number; clusterName: string }): Promise<Instance | null> {
  try {
    return await getJson<Instance>('/nacos/v1/ns/instance', { ...k, ip: i.ip, port: i.port, clusterName: i.clusterName });
  } catch {
    return null;
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
