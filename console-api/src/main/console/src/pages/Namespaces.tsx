import { useCallback, useEffect, useState } from 'react';
import { Alert, Button, Group, Modal, Stack, Table, TextInput, Title } from '@mantine/core';
import { call, describe, getJson } from '../api';
import { useSession } from '../session';

const PATH = '/nacos/v1/console/namespaces';

export interface Namespace {
  namespace: string;
  namespaceShowName: string;
  namespaceDesc?: string;
  quota?: number;
  configCount?: number;
  serviceCount?: number;
  type: number;
}

export function useNamespaces() {
  const [namespaces, setNamespaces] = useState<Namespace[]>([{ namespace: '', namespaceShowName: 'public', type: 0 }]);
  const reload = useCallback(() => {
    getJson<{ data: Namespace[] }>(PATH).then((r) => setNamespaces(r.data)).catch(() => {});
  }, []);
  useEffect(reload, [reload]);
  return { namespaces, reload };
}

export function Namespaces({ onChanged }: { onChanged: () => void }) {
  const { user } = useSession();
  const { namespaces, reload } = useNamespaces();
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<Namespace | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Namespace | null>(null);
  const admin = user.globalAdmin;
  const changed = () => {
    reload();
    onChanged();
  };

  const doDelete = async (n: Namespace) => {
    setError(null);
    try {
      await call(PATH, { method: 'DELETE', query: { namespaceId: n.namespace } });
      changed();
    } catch (e) {
      setError(describe(e));
    }
    setDeleting(null);
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={3}>Namespaces</Title>
        {admin && <Button onClick={() => setEditing('new')} data-testid="create-namespace">Create namespace</Button>}
      </Group>
      {error && <Alert color="red" data-testid="namespace-error" withCloseButton onClose={() => setError(null)}>{error}</Alert>}
      <Table striped data-testid="namespace-table">
        <Table.Thead>
          <Table.Tr><Table.Th>Name</Table.Th><Table.Th>ID</Table.Th><Table.Th>Description</Table.Th><Table.Th>Configs</Table.Th><Table.Th>Services</Table.Th><Table.Th>Quota</Table.Th><Table.Th /></Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {namespaces.map((n) => (
            <Table.Tr key={n.namespace} data-testid="namespace-row">
              <Table.Td>{n.namespaceShowName}</Table.Td>
              <Table.Td ff="monospace">{n.namespace || '(public)'}</Table.Td>
              <Table.Td>{n.namespaceDesc}</Table.Td>
              <Table.Td>{n.configCount ?? '—'}</Table.Td>
              <Table.Td>{n.serviceCount ?? '—'}</Table.Td>
              <Table.Td>{n.quota ?? '—'}</Table.Td>
              <Table.Td>
                {admin && n.type !== 0 && (
                  <Group gap="xs">
                    <Button size="compact-xs" variant="default" onClick={() => setEditing(n)}>Edit</Button>
                    <Button size="compact-xs" color="red" variant="light" onClick={() => setDeleting(n)} data-testid="delete-namespace">Delete</Button>
                  </Group>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {editing && <EditNamespace ns={editing === 'new' ? null : editing} onClose={() => setEditing(null)} onSaved={changed} />}
      {deleting && (
        <Modal opened onClose={() => setDeleting(null)} title="Delete namespace?">
          <Stack>
            <div>Delete <b>{deleting.namespaceShowName}</b> ({deleting.namespace})? The server refuses while it holds configs.</div>
            <Group justify="end">
              <Button variant="default" onClick={() => setDeleting(null)}>Cancel</Button>
              <Button color="red" onClick={() => doDelete(deleting)} data-testid="confirm-delete-namespace">Delete</Button>
            </Group>
          </Stack>
        </Modal>
      )}
    </Stack>
  );
}

function EditNamespace(props: { ns: Namespace | null; onClose: () => void; onSaved: () => void }) {
  const [id, setId] = useState(props.ns?.namespace ?? '');
  const [name, setName] = useState(props.ns?.namespaceShowName ?? '');
  const [desc, setDesc] = useState(props.ns?.namespaceDesc ?? '');
  const [error, setError] = useState<string | null>(null);
  const save = async () => {
    setError(null);
    try {
      if (props.ns) {
        await call(PATH, { method: 'PUT', query: { namespace: id, namespaceShowName: name, namespaceDesc: desc } });
      } else {
        const r = await call(PATH, { method: 'POST', form: { customNamespaceId: id, namespaceName: name, namespaceDesc: desc } });
        if ((await r.text()).trim() === 'false') throw new Error(`a namespace with the id '${id}' exists already`);
      }
      props.onSaved();
      props.onClose();
    } catch (e) {
      setError(describe(e));
    }
  };
  return (
    <Modal opened onClose={props.onClose} title={props.ns ? 'Edit namespace' : 'Create namespace'}>
      <Stack>
        {error && <Alert color="red" data-testid="namespace-form-error">{error}</Alert>}
        <TextInput label="ID" description={props.ns ? undefined : 'letters, digits, - and _; a UUID when empty'} value={id} disabled={!!props.ns} onChange={(e) => setId(e.currentTarget.value)} data-testid="ns-id" />
        <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} data-testid="ns-name" />
        <TextInput label="Description" value={desc} onChange={(e) => setDesc(e.currentTarget.value)} data-testid="ns-desc" />
        <Group justify="end">
          <Button variant="default" onClick={props.onClose}>Cancel</Button>
          <Button onClick={save} disabled={!name} data-testid="ns-save">Save</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
