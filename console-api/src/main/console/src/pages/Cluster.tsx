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
  members: { address: string; httpAddress: string | null; state: string }[];
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
  const down = view?.members.filter((m) => m.state === 'UNREACHABLE') ?? [];
  return (
    <Stack>
      <Title order={3}>Cluster</Title>
      {error && <Alert color="red">{error}</Alert>}
      {down.length > 0 && <Alert color="red" title="A member is down" data-testid="member-down">{down.map((m) => m.address).join(', ')} unreachable</Alert>}
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
              <Table.Tr><Table.Th>Raft address</Table.Th><Table.Th>HTTP address</Table.Th><Table.Th>State</Table.Th></Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {view.members.map((m) => (
                <Table.Tr key={m.address}>
                  <Table.Td ff="monospace">{m.address}</Table.Td>
                  <Table.Td ff="monospace">{m.httpAddress ?? '—'}</Table.Td>
                  <Table.Td><Badge color={m.state === 'LEADER' ? 'blue' : m.state === 'UNREACHABLE' ? 'red' : 'green'}>{m.state}</Badge></Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </>
      )}
    </Stack>
  );
}
