import { useEffect, useState } from 'react';
import { Alert, Anchor, Button, Group, Pagination, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useNavigate } from 'react-router-dom';
import { describe } from '../api';
import { service, serviceList, type ServiceDetail } from '../naming';
import { useSession } from '../session';

const PAGE_SIZE = 20;

export function Services() {
  const { namespace } = useSession();
  const navigate = useNavigate();
  const [group, setGroup] = useState('DEFAULT_GROUP');
  const [pageNo, setPageNo] = useState(1);
  const [count, setCount] = useState(0);
  const [rows, setRows] = useState<{ name: string; detail: ServiceDetail | null }[]>([]);
  const [error, setError] = useState<string | null>(null);

  const load = async (p: number) => {
    setError(null);
    try {
      const list = await serviceList(namespace, group, p, PAGE_SIZE);
      setCount(list.count);
      setPageNo(p);
      // the list names services only; their counts come from one query each (a page is 20 at most)
      const details = await Promise.all(
        list.doms.map((name) => service({ serviceName: name, groupName: group, namespaceId: namespace }).catch(() => null)),
      );
      setRows(list.doms.map((name, i) => ({ name, detail: details[i] })));
    } catch (e) {
      setRows([]);
      setError(describe(e));
    }
  };
  useEffect(() => { load(1); }, [namespace]); // eslint-disable-line react-hooks/exhaustive-deps

  return (
    <Stack>
      <Title order={3}>Services</Title>
      <form onSubmit={(e) => { e.preventDefault(); load(1); }}>
        <Group align="end">
          <TextInput label="Group" value={group} onChange={(e) => setGroup(e.currentTarget.value)} data-testid="service-group" />
          <Button type="submit" data-testid="service-search">List</Button>
        </Group>
      </form>
      {error && <Alert color="red">{error}</Alert>}
      <Table striped data-testid="service-table">
        <Table.Thead>
          <Table.Tr><Table.Th>Service</Table.Th><Table.Th>Group</Table.Th><Table.Th>Clusters</Table.Th><Table.Th>Instances</Table.Th><Table.Th>Healthy</Table.Th><Table.Th>Protect threshold</Table.Th></Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map(({ name, detail }) => (
            <Table.Tr key={name}>
              <Table.Td>
                <Anchor data-testid="service-link" onClick={() => navigate(`/services/detail?${new URLSearchParams({ serviceName: name, groupName: group, namespaceId: namespace })}`)}>{name}</Anchor>
              </Table.Td>
              <Table.Td>{group}</Table.Td>
              <Table.Td>{detail?.clusters.map((c) => c.name).join(', ')}</Table.Td>
              <Table.Td>{detail ? detail.ephemeralInstanceCount + detail.persistentInstanceCount : '?'}</Table.Td>
              <Table.Td>{detail?.healthyInstanceCount ?? '?'}</Table.Td>
              <Table.Td>{detail?.protectThreshold}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Group justify="space-between">
        <Text size="sm" c="dimmed">{count} services</Text>
        <Pagination total={Math.max(1, Math.ceil(count / PAGE_SIZE))} value={pageNo} onChange={load} />
      </Group>
    </Stack>
  );
}
