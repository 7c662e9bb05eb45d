import { useEffect, useState } from 'react';
import { Alert, Badge, Button, Group, Stack, Table, Text, TextInput } from '@mantine/core';
import { describe } from '../api';
import type { ConfigKey } from '../config';
import { delivery, type DeliveryReport, type DeliveryStatus } from '../delivery';

const COLORS: Record<DeliveryStatus, string> = {
  pulled: 'green',
  notified: 'blue',
  unanswered: 'red',
  excluded: 'gray',
  superseded: 'gray',
  waiting: 'yellow',
};

function time(ms: number | null | undefined) {
  return ms ? new Date(ms).toLocaleTimeString() : '';
}

/**
 * Who got a publish (the current content unless an md5 or a history id is given): each listener on
 * every member, whether its member told it and when, whether it has pulled the content since, and
 * why not. A member that did not answer is named: its listeners are missing.
 */
export function Delivery(props: { configKey: ConfigKey; currentMd5: string | undefined }) {
  const [report, setReport] = useState<DeliveryReport | null>(null);
  const [md5, setMd5] = useState('');
  const [nid, setNid] = useState('');
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    delivery(props.configKey, { md5, nid })
      .then((r) => { setReport(r); setError(null); })
      .catch((e) => { setReport(null); setError(describe(e)); });
  useEffect(() => { load(); }, [props.currentMd5]); // eslint-disable-line react-hooks/exhaustive-deps
  return (
    <Stack>
      <Group align="end">
        <TextInput label="Publish md5 (empty: current)" value={md5} onChange={(e) => setMd5(e.currentTarget.value.trim())} w={320} data-testid="delivery-md5" />
        <TextInput label="or history id" value={nid} onChange={(e) => setNid(e.currentTarget.value.trim())} w={160} data-testid="delivery-nid" />
        <Button variant="default" onClick={load} data-testid="delivery-refresh">Refresh</Button>
      </Group>
      {error && <Alert color="red" data-testid="delivery-error">{error}</Alert>}
      {report?.nodes.filter((n) => !n.reachable).map((n) => (
        <Alert key={n.node} color="yellow" data-testid="delivery-silent-member">
          Member {n.node} did not answer{n.error ? `: ${n.error}` : ''}; its listeners are not listed.
        </Alert>
      ))}
      {report && (
        <>
          <Text size="sm">
            Publish <b>{report.md5}</b>{report.nid != null && <> (revision {report.nid})</>}
            {report.publishedAt != null && <> at {new Date(report.publishedAt).toLocaleString()}</>}
            {report.beta && <> · gray release to {report.beta.betaIps.join(', ')} (md5 {report.beta.md5})</>}
          </Text>
          <Group data-testid="delivery-summary">
            {(Object.keys(COLORS) as DeliveryStatus[]).map((s) => (
              <Badge key={s} color={COLORS[s]} variant="light" data-testid={`delivery-count-${s}`}>{s}: {report.summary[s] ?? 0}</Badge>
            ))}
          </Group>
          <Table data-testid="delivery-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Client</Table.Th><Table.Th>Protocol</Table.Th><Table.Th>Member</Table.Th>
                <Table.Th>Status</Table.Th><Table.Th>Told</Table.Th><Table.Th>Pulled</Table.Th><Table.Th>Why not</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {report.listeners.map((l, i) => (
                <Table.Tr key={i} data-testid="delivery-row" data-protocol={l.protocol} data-status={l.status}>
                  <Table.Td>{l.clientAddress}</Table.Td>
                  <Table.Td>{l.protocol}</Table.Td>
                  <Table.Td>{l.node}</Table.Td>
                  <Table.Td><Badge color={COLORS[l.status]} variant="light">{l.status}</Badge></Table.Td>
                  <Table.Td>{l.notified ? `${time(l.notifiedAt)}${l.notice?.acked ? ' (acked)' : ''}` : ''}</Table.Td>
                  <Table.Td>{l.pulled ? `${l.pulledVia ?? ''} ${time(l.pulledAt)}` : ''}</Table.Td>
                  <Table.Td>{l.reason ?? ''}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </>
      )}
    </Stack>
  );
}
