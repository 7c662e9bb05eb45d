import { useEffect, useState } from 'react';
import { Alert, Badge, Group, Stack, Table, Text, Title } from '@mantine/core';
import { call, describe, getJson } from '../api';

interface ClusterView {
  self: string;
  leader: string;
  term: number;
  appliedIndex: number;
  commitIndex: number;
  revision: number;
  ready: boolean;
  members: Member[];
}

/** One member as it reported itself to the node asked (absent fields: it did not answer). */
interface Member {
  address: string;
  httpAddress: string | null;
  state: string;
  status?: 'UP' | 'DOWN' | 'UNREACHABLE';
  role?: string;
  term?: number;
  commitIndex?: number;
  appliedIndex?: number;
  readiness?: string;
  distro?: { loaded: boolean; lastVerify: Record<string, { at: number; differing: number; error?: string | null }> };
}

/** How far behind the leader's commit index a member may apply before the page warns. */
const LAG_WARN_ENTRIES = 1000;

function distroSummary(m: Member): string {
  if (!m.distro) return '—';
  if (!m.distro.loaded) return 'loading';
  const peers = Object.values(m.distro.lastVerify);
  if (peers.length === 0) return 'loaded';
  const failing = peers.filter((p) => p.error).length;
  const newest = Math.max(...peers.map((p) => p.at));
  return `${failing === 0 ? 'in sync' : `${failing} peer(s) failing`}, verified ${new Date(newest).toLocaleTimeString()}`;
}

const REFRESH_MS = 5000;

export function Cluster() {
  const [view, setView] = useState<ClusterView | null>(null);
  const [readiness, setReadiness] = useState<string>('?');
  const [error, setError] = useState<string | null>(null);
  const load = () => {
    getJson<ClusterView>('/lodestar/v1/cluster').then((v) => { setView(v); setError(null); }).catch((e) => setError(describe(e)));
    call('/nacos/v1/console/health/readiness').then((r) => r.text()).then(setReadiness).catch((e) => setReadiness(describe(e)));
  };
  useEffect(() => {
    load();
    const t = window.setInterval(load, REFRESH_MS);
    return () => window.clearInterval(t);
  }, []);
  const down = view?.members.filter((m) => m.state === 'UNREACHABLE' || m.status === 'UNREACHABLE') ?? [];
  const leaderCommit = view?.members.find((m) => m.role === 'LEADER')?.commitIndex ?? view?.commitIndex ?? 0;
  const lagging = view?.members.filter((m) => m.appliedIndex !== undefined && leaderCommit - m.appliedIndex > LAG_WARN_ENTRIES) ?? [];
  return (
    <Stack>
      <Title order={3}>Cluster</Title>
      {error && <Alert color="red">{error}</Alert>}
      {down.length > 0 && <Alert color="red" title="A member is down" data-testid="member-down">{down.map((m) => m.address).join(', ')} unreachable</Alert>}
      {lagging.length > 0 && (
        <Alert color="yellow" title="A member lags" data-testid="member-lagging">
          {lagging.map((m) => `${m.address} applied ${m.appliedIndex} of ${leaderCommit}`).join('; ')}
        </Alert>
      )}
      {view && (
        <>
          <Group>
            <Text>This node <b>{view.self}</b></Text>
            <Text>Leader <b data-testid="cluster-leader">{view.leader || 'none'}</b></Text>
            <Text>Term {view.term}</Text>
            <Text>Applied {view.appliedIndex} / committed {view.commitIndex}</Text>
            <Text>Revision {view.revision}</Text>
            <Badge color={view.ready ? 'green' : 'red'}>{view.ready ? 'ready' : 'not ready'}</Badge>
          </Group>
          <Text size="sm">Readiness probe: {readiness}</Text>
          <Table striped data-testid="member-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Raft address</Table.Th><Table.Th>HTTP address</Table.Th><Table.Th>State</Table.Th><Table.Th>Term</Table.Th>
                <Table.Th>Committed / applied</Table.Th><Table.Th>Readiness</Table.Th><Table.Th>Distro</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {view.members.map((m) => (
                <Table.Tr key={m.address} data-testid="member-row">
                  <Table.Td ff="monospace">{m.address}</Table.Td>
                  <Table.Td ff="monospace">{m.httpAddress ?? '—'}</Table.Td>
                  <Table.Td><Badge color={m.state === 'LEADER' ? 'blue' : m.state === 'UNREACHABLE' ? 'red' : 'green'}>{m.state}</Badge></Table.Td>
                  <Table.Td>{m.term ?? '—'}</Table.Td>
                  <Table.Td>{m.commitIndex ?? '—'} / {m.appliedIndex ?? '—'}</Table.Td>
                  <Table.Td>{m.status === undefined ? '—' : <Badge color={m.status === 'UP' ? 'green' : 'red'} title={m.readiness}>{m.status}</Badge>} {m.status !== 'UP' && m.readiness}</Table.Td>
                  <Table.Td>{distroSummary(m)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </>
      )}
    </Stack>
  );
}
