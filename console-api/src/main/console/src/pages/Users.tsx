import { useEffect, useState } from 'react';
import { Alert, Button, Group, PasswordInput, Select, Stack, Table, Tabs, Text, TextInput, Title } from '@mantine/core';
import { call, describe, getJson } from '../api';
import { useSession } from '../session';

interface Page<T> { pageItems: T[]; totalCount: number }
const USERS = '/nacos/v1/auth/users';
const ROLES = '/nacos/v1/auth/roles';
const PERMISSIONS = '/nacos/v1/auth/permissions';
const ALL = { pageNo: 1, pageSize: 500 };

/** Users, roles and permissions: the admin's only (anyone else gets the server's 403). */
export function Users() {
  const { user } = useSession();
  const [users, setUsers] = useState<{ username: string }[]>([]);
  const [roles, setRoles] = useState<{ role: string; username: string }[]>([]);
  const [perms, setPerms] = useState<{ role: string; resource: string; action: string }[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [form, setForm] = useState({ username: '', password: '', role: '', roleUser: '', permRole: '', resource: '', action: 'r' });
  const set = (k: keyof typeof form) => (e: { currentTarget: { value: string } }) => setForm({ ...form, [k]: e.currentTarget.value });

  const load = async () => {
    try {
      const [u, r, p] = await Promise.all([
        getJson<Page<{ username: string }>>(USERS, ALL),
        getJson<Page<{ role: string; username: string }>>(ROLES, ALL),
        getJson<Page<{ role: string; resource: string; action: string }>>(PERMISSIONS, ALL),
      ]);
      setUsers(u.pageItems);
      setRoles(r.pageItems);
      setPerms(p.pageItems);
      setError(null);
    } catch (e) {
      setError(describe(e));
    }
  };
  useEffect(() => { load(); }, []);
  const act = (f: () => Promise<unknown>) => async () => {
    try {
      await f();
      await load();
    } catch (e) {
      setError(describe(e));
    }
  };

  if (!user.globalAdmin) {
    return <Stack><Title order={3}>Users &amp; roles</Title><Text>Only the admin manages users, roles and permissions.</Text></Stack>;
  }
  return (
    <Stack>
      <Title order={3}>Users &amp; roles</Title>
      {error && <Alert color="red" withCloseButton onClose={() => setError(null)}>{error}</Alert>}
      <Tabs defaultValue="users">
        <Tabs.List>
          <Tabs.Tab value="users">Users</Tabs.Tab>
          <Tabs.Tab value="roles">Roles</Tabs.Tab>
          <Tabs.Tab value="permissions">Permissions</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="users" pt="md">
          <Group align="end">
            <TextInput label="User" value={form.username} onChange={set('username')} />
            <PasswordInput label="Password (8+ characters)" value={form.password} onChange={set('password')} w={220} />
            <Button onClick={act(() => call(USERS, { method: 'POST', form: { username: form.username, password: form.password } }))} disabled={!form.username || form.password.length < 8}>Create user</Button>
          </Group>
          <Table striped mt="md" data-testid="users-table">
            <Table.Tbody>
              {users.map((u) => (
                <Table.Tr key={u.username}>
                  <Table.Td>{u.username}</Table.Td>
                  <Table.Td>{u.username !== 'nacos' && <Button size="compact-xs" color="red" variant="light" onClick={act(() => call(USERS, { method: 'DELETE', query: { username: u.username } }))}>Delete</Button>}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Tabs.Panel>
        <Tabs.Panel value="roles" pt="md">
          <Group align="end">
            <TextInput label="Role" value={form.role} onChange={set('role')} />
            <Select label="User" data={users.map((u) => u.username)} value={form.roleUser || null} onChange={(v) => setForm({ ...form, roleUser: v ?? '' })} />
            <Button onClick={act(() => call(ROLES, { method: 'POST', form: { role: form.role, username: form.roleUser } }))} disabled={!form.role || !form.roleUser}>Give role</Button>
          </Group>
          <Table striped mt="md">
            <Table.Thead><Table.Tr><Table.Th>Role</Table.Th><Table.Th>User</Table.Th><Table.Th /></Table.Tr></Table.Thead>
            <Table.Tbody>
              {roles.map((r) => (
                <Table.Tr key={r.role + '/' + r.username}>
                  <Table.Td>{r.role}</Table.Td><Table.Td>{r.username}</Table.Td>
                  <Table.Td>{r.role !== 'ROLE_ADMIN' && <Button size="compact-xs" color="red" variant="light" onClick={act(() => call(ROLES, { method: 'DELETE', query: { role: r.role, username: r.username } }))}>Take away</Button>}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Tabs.Panel>
        <Tabs.Panel value="permissions" pt="md">
          <Group align="end">
            <TextInput label="Role" value={form.permRole} onChange={set('permRole')} />
            <TextInput label="Resource" placeholder="namespace:group:config/dataId" value={form.resource} onChange={set('resource')} w={280} />
            <Select label="Action" data={['r', 'w', 'rw']} value={form.action} onChange={(v) => setForm({ ...form, action: v ?? 'r' })} w={80} allowDeselect={false} />
            <Button onClick={act(() => call(PERMISSIONS, { method: 'POST', form: { role: form.permRole, resource: form.resource, action: form.action } }))} disabled={!form.permRole || !form.resource}>Grant</Button>
          </Group>
          <Table striped mt="md">
            <Table.Thead><Table.Tr><Table.Th>Role</Table.Th><Table.Th>Resource</Table.Th><Table.Th>Action</Table.Th><Table.Th /></Table.Tr></Table.Thead>
            <Table.Tbody>
              {perms.map((p) => (
                <Table.Tr key={p.role + p.resource + p.action}>
                  <Table.Td>{p.role}</Table.Td><Table.Td ff="monospace">{p.resource}</Table.Td><Table.Td>{p.action}</Table.Td>
                  <Table.Td><Button size="compact-xs" color="red" variant="light" onClick={act(() => call(PERMISSIONS, { method: 'DELETE', query: { ...p } }))}>Revoke</Button></Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
