// The delivery report of a publish (GET /lodestar/v1/cs/delivery): docs/http-api.md is the contract.
import { getJson } from './api';
import { keyParams, type ConfigKey } from './config';

export const DELIVERY = '/lodestar/v1/cs/delivery';

export type DeliveryStatus = 'pulled' | 'notified' | 'unanswered' | 'excluded' | 'superseded' | 'waiting';

export interface DeliveryRow {
  clientAddress: string;
  protocol: string;
  node: string;
  md5: string | null;
  notice?: { md5: string | null; at: number; via: string; acked?: boolean; error?: string };
  pull?: { md5: string; at: number; via: string };
  notified: boolean;
  notifiedAt: number | null;
  pulled: boolean;
  pulledVia?: string;
  pulledAt?: number | null;
  status: DeliveryStatus;
  reason?: string;
}

export interface DeliveryReport {
  md5: string;
  nid: number | null;
  publishedAt: number | null;
  currentMd5: string | null;
  beta?: { md5: string; betaIps: string[] };
  summary: Record<DeliveryStatus, number>;
  listeners: DeliveryRow[];
  nodes: { node: string; reachable: boolean; error?: string }[];
}

/** The report of the publish named by `md5` or `nid`; the current content's when both are empty. */
export function delivery(k: ConfigKey, publish: { md5?: string; nid?: string }) {
  return getJson<DeliveryReport>(DELIVERY, { ...keyParams(k), md5: publish.md5 || undefined, nid: publish.nid || undefined });
}
