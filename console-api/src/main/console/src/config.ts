// The config endpoints, typed: docs/http-api.md is the contract.
import { call, getJson, NEVER_MD5, type Params } from './api';

export const CONFIGS = '/nacos/v1/cs/configs';
export const HISTORY = '/nacos/v1/cs/history';
export const LISTENERS = '/nacos/v1/cs/configs/listener';

export interface ConfigKey {
  dataId: string;
  group: string;
  tenant: string;
}

export interface ConfigItem extends ConfigKey {
  id: string;
  content: string;
  md5: string;
  appName: string;
  type: string;
}

export interface ConfigAll extends ConfigItem {
  desc?: string;
  configTags?: string;
  modifyTime?: number;
  createTime?: number;
  createUser?: string;
}

export interface Page<T> {
  totalCount: number;
  pageNumber: number;
  pagesAvailable: number;
  pageItems: T[];
}

export interface HistoryItem {
  id: string;
  dataId: string;
  group: string;
  md5?: string;
  opType: string;
  srcUser?: string;
  srcIp?: string;
  createdTime?: string;
  lastModifiedTime?: string;
  content?: string | null;
}

export interface Beta {
  dataId: string;
  group: string;
  content: string;
  md5: string;
  betaIps: string;
}

export const TYPES = ['text', 'yaml', 'properties', 'json', 'xml'] as const;

export function keyParams(k: ConfigKey): Params {
  return { dataId: k.dataId, group: k.group, tenant: k.tenant };
}

export function search(blur: boolean, p: Params) {
  return getJson<Page<ConfigItem>>(CONFIGS, { search: blur ? 'blur' : 'accurate', ...p });
}

export function detail(k: ConfigKey) {
  return getJson<ConfigAll>(CONFIGS, { show: 'all', ...keyParams(k) });
}

export interface Publish extends ConfigKey {
  content: string;
  type: string;
  desc?: string;
  config_tags?: string;
  appName?: string;
  casMd5?: string;
}

export async function publish(p: Publish): Promise<void> {
  await call(CONFIGS, { method: 'POST', form: { ...p } });
}

export async function remove(k: ConfigKey): Promise<void> {
  await call(CONFIGS, { method: 'DELETE', query: keyParams(k) });
}

export function history(k: ConfigKey, pageNo: number) {
  return getJson<Page<HistoryItem>>(HISTORY, { search: 'accurate', ...keyParams(k), pageNo, pageSize: 50 });
}

export function historyEntry(k: ConfigKey, nid: string) {
  return getJson<HistoryItem>(HISTORY, { nid, ...keyParams(k) });
}

export async function beta(k: ConfigKey): Promise<Beta | null> {
  const r = await getJson<{ data: Beta | null }>(CONFIGS, { beta: true, ...keyParams(k) });
  return r.data;
}

export async function publishBeta(p: Publish, ips: string) {
  await call(CONFIGS, { method: 'POST', form: { ...p, casMd5: undefined }, headers: { betaIps: ips } });
}

export async function stopBeta(k: ConfigKey) {
  await call(CONFIGS, { method: 'DELETE', query: { beta: true, ...keyParams(k) } });
}

export async function promoteBeta(k: ConfigKey) {
  await call('/lodestar/v1/cs/configs/beta/promote', { method: 'POST', form: keyParams(k) });
}

/** May the caller write this key? Asked by a compare-and-set that cannot match (nothing is written). */
export function writeProbe(k: ConfigKey) {
  return () =>
    call(CONFIGS, { method: 'POST', form: { ...keyParams(k), content: 'probe', casMd5: NEVER_MD5 } });
}
