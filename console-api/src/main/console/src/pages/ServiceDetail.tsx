import { useEffect, useState } from 'react';
import { Alert, Badge, Button, Code, Group, NumberInput, Stack, Table, Title } from '@mantine/core';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { canWrite, describe } from '../api';
import { instances, namingWriteProbe, patchInstance, subscribers, type CatalogInstance, type HeldBy, type ServiceKey, type Subscriber } from '../naming';
import { watchService } from '../push';

const id = (i: { ip: string; port: number; clusterName: string }) => `${i.clusterName}/${i.ip}:${i.port}`;

export function ServiceDetail() {
  const [params] = useSearchParams();
  const key: ServiceKey = { serviceName: params.get('serviceName') ?? '', groupName: params.get('groupName') ?? 'DEFAULT_GROUP', namespaceId: params.get('namespaceId') ?? '' };
  const navigate = useNavigate();
  const [rows, setRows] = useState<CatalogInstance[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [writable, setWritable] = useState(false);
  const [live, setLive] = useState(false);
  const [subs, setSubs] = useState<{ list: Subscriber[]; count: number; silent: string[] } | null>(null);

  const load = async () => {
    try {
      const [listed, subscribed] = await Promise.all([instances(key), subscribers(key)]);
      setRows(listed);
      setSubs({ list: subscribed.subscribers, count: subscribed.count, silent: subscribed.nodes.filter((n) => !n.reachable).map((n) => n.node) });
      setError(null);
    } catch (e) {
      setError(describe(e));
    }
  };

  useEffect(() => {
    load();
    canWrite(namingWriteProbe(key)).then(setWritable);
    // the list follows the service: each change pushed by the server is fetched again
    return watchService(key, load, setLive);
  }, [key.serviceName, key.groupName, key.namespaceId]); // eslint-disable-line react-hooks/exhaustive-deps

  const change = async (i: CatalogInstance, fields: { weight?: number; enabled?: boolean }) => {
    try {
      await patchInstance(key, i, fields);
      await load();
    } catch (e) {
      setError(describe(e));
    }
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Group>
          <Title order={3} data-testid="service-title">{key.serviceName}</Title>
          <Badge variant="light">{key.groupName}</Badge>
          <Badge variant="outline">{key.namespaceId || 'public'}</Badge>
          <Badge color={live ? 'green' : 'gray'} data-testid="service-live">{live ? 'live' : 'not live'}</Badge>
        </Group>
        <Button variant="default" onClick={() => navigate('/services')}>Back</Button>
      </Group>
      {error && <Alert color="red" data-testid="service-error">{error}</Alert>}
      <Table striped data-testid="instance-table">
        <Table.Thead>
          <Table.Tr><Table.Th>Address</Table.Th><Table.Th>Cluster</Table.Th><Table.Th>Health</Table.Th><Table.Th>Weight</Table.Th><Table.Th>Enabled</Table.Th><Table.Th>Ephemeral</Table.Th><Table.Th>Metadata</Table.Th><Table.Th>Held by</Table.Th><Table.Th /></Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((i) => (
            <Table.Tr key={id(i)} data-testid="instance-row" data-instance={`${i.ip}:${i.port}`}>
              <Table.Td ff="monospace">{i.ip}:{i.port}</Table.Td>
              <Table.Td>{i.clusterName}</Table.Td>
              <Table.Td><Badge color={i.healthy ? 'green' : 'red'}>{i.healthy ? 'healthy' : 'unhealthy'}</Badge></Table.Td>
              <Table.Td>{writable ? <WeightEditor value={i.weight} onSave={(w) => change(i, { weight: w })} /> : i.weight}</Table.Td>
              <Table.Td><Badge color={i.enabled ? 'blue' : 'gray'} data-testid="instance-enabled">{i.enabled ? 'enabled' : 'disabled'}</Badge></Table.Td>
              <Table.Td>{i.ephemeral ? 'yes' : 'no'}</Table.Td>
              <Table.Td>{Object.keys(i.metadata ?? {}).length === 0 ? '—' : <Code>{Object.entries(i.metadata).map(([k, v]) => `${k}=${v}`).join(', ')}</Code>}</Table.Td>
              <Table.Td data-testid="instance-held-by">{heldBy(i.heldBy)}</Table.Td>
              <Table.Td>
                {writable && (
                  <Button size="compact-xs" variant="light" color={i.enabled ? 'orange' : 'blue'} onClick={() => change(i, { enabled: !i.enabled })} data-testid="toggle-enabled">
                    {i.enabled ? 'Disable' : 'Enable'}
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {subs && <Subscribers {...subs} />}
    </Stack>
  );
}

function Subscribers(props: { list: Subscriber[]; count: number; silent: string[] }) {
  return (
    <Stack gap="xs">
      <Title order={5}>Subscribers on every member: <span data-testid="subscriber-count">{props.count}</span></Title>
      {props.silent.length > 0 && <Alert color="yellow">{props.silent.join(', ')} did not answer; their subscribers are not listed.</Alert>}
      <Table data-testid="subscriber-table">
        <Table.Thead>
          <Table.Tr><Table.Th>Client</Table.Th><Table.Th>Protocol</Table.Th><Table.Th>Agent</Table.Th><Table.Th>Cluster</Table.Th><Table.Th>Member</Table.Th></Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {props.list.map((s, i) => (
            <Table.Tr key={i} data-testid="subscriber-row" data-protocol={s.protocol}>
              <Table.Td ff="monospace">{s.addrStr}</Table.Td>
              <Table.Td>{s.protocol}</Table.Td>
              <Table.Td>{s.agent ?? '—'}</Table.Td>
              <Table.Td>{s.cluster || '—'}</Table.Td>
              <Table.Td>{s.node}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

function WeightEditor(props: { value: number; onSave: (w: number) => void }) {
  const [w, setW] = useState<number | string>(props.value);
  useEffect(() => setW(props.value), [props.value]);
  return (
    <Group gap={4} wrap="nowrap">
      <NumberInput size="xs" w={80} min={0} max={10000} step={0.5} value={w} onChange={setW} aria-label="Weight" />
      {Number(w) !== props.value && <Button size="compact-xs" onClick={() => props.onSave(Number(w))}>Save</Button>}
    </Group>
  );
}

function heldBy(h: HeldBy | undefined): string {
  if (!h) return '?';
  if (h.kind === 'grpc') {
    const clients = (h.connections ?? []).map((c) => c.clientAddress).join(', ');
    return `connection ${clients || '(member did not answer)'} on ${h.node ?? '?'}`;
  }
  return h.kind === 'http-beat' ? 'heartbeats' : 'stored (probed by the server)';
}
