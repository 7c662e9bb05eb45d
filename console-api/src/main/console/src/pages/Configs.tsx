import { useCallback, useEffect, useState } from 'react';
import { Alert, Anchor, Button, FileInput, Group, Modal, Pagination, SegmentedControl, Select, Stack, Table, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useNavigate } from 'react-router-dom';
import { call, canWrite, describe } from '../api';
import { CONFIGS, TYPES, publish, search, writeProbe, type ConfigItem, type Page } from '../config';
import { useSession } from '../session';
import { CodeEditor } from '../editor';

const PAGE_SIZE = 20;

export function detailPath(k: { dataId: string; group: string; tenant: string }) {
  return `/configs/detail?${new URLSearchParams({ dataId: k.dataId, group: k.group, tenant: k.tenant ?? '' })}`;
}

export function Configs() {
  const { namespace } = useSession();
  const navigate = useNavigate();
  const [mode, setMode] = useState<'blur' | 'accurate'>('blur');
  const [dataId, setDataId] = useState('');
  const [group, setGroup] = useState('');
  const [tags, setTags] = useState('');
  const [appName, setAppName] = useState('');
  const [pageNo, setPageNo] = useState(1);
  const [page, setPage] = useState<Page<ConfigItem> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [writable, setWritable] = useState(false);
  const [creating, setCreating] = useState(false);
  const [importing, setImporting] = useState(false);

  const load = useCallback(
    (p: number) => {
      setError(null);
      const wild = (s: string) => (mode === 'blur' && s && !s.includes('*') ? `*${s}*` : s);
      search(mode === 'blur', { dataId: wild(dataId), group: wild(group), tenant: namespace, appName, config_tags: tags, pageNo: p, pageSize: PAGE_SIZE })
        .then((r) => {
          setPage(r);
          setPageNo(p);
        })
        .catch((e) => {
          setPage(null);
          setError(describe(e));
        });
    },
    [mode, dataId, group, tags, appName, namespace],
  );

  useEffect(() => load(1), [namespace]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    canWrite(writeProbe({ dataId: 'lodestar-console-probe', group: 'DEFAULT_GROUP', tenant: namespace })).then(setWritable);
  }, [namespace]);

  const exportZip = async () => {
    try {
      const res = await call(CONFIGS, { query: { exportV2: true, tenant: namespace } });
      const url = URL.createObjectURL(await res.blob());
      const a = document.createElement('a');
      a.href = url;
      a.download = `lodestar-${namespace || 'public'}.zip`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (e) {
      setError(describe(e));
    }
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={3}>Configs</Title>
        <Group>
          <Button variant="default" onClick={exportZip} data-testid="export">Export zip</Button>
          {writable && <Button variant="default" onClick={() => setImporting(true)} data-testid="import">Import zip</Button>}
          {writable && <Button onClick={() => setCreating(true)} data-testid="create-config">Create config</Button>}
        </Group>
      </Group>
      <form onSubmit={(e) => { e.preventDefault(); load(1); }}>
        <Group align="end">
          <SegmentedControl value={mode} onChange={(v) => setMode(v as 'blur' | 'accurate')} data={[{ value: 'blur', label: 'Blur' }, { value: 'accurate', label: 'Exact' }]} />
          <TextInput label="Data ID" data-testid="search-dataId" value={dataId} onChange={(e) => setDataId(e.currentTarget.value)} />
          <TextInput label="Group" data-testid="search-group" value={group} onChange={(e) => setGroup(e.currentTarget.value)} />
          <TextInput label="Tags" value={tags} onChange={(e) => setTags(e.currentTarget.value)} w={140} />
          <TextInput label="App" value={appName} onChange={(e) => setAppName(e.currentTarget.value)} w={140} />
          <Button type="submit" data-testid="search">Search</Button>
        </Group>
      </form>
      {error && <Alert color="red" data-testid="configs-error">{error}</Alert>}
      {page && (
        <>
          <Table striped highlightOnHover data-testid="config-table">
            <Table.Thead>
              <Table.Tr><Table.Th>Data ID</Table.Th><Table.Th>Group</Table.Th><Table.Th>Type</Table.Th><Table.Th>App</Table.Th><Table.Th>MD5</Table.Th></Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {page.pageItems.map((c) => (
                <Table.Tr key={c.group + '/' + c.dataId}>
                  <Table.Td><Anchor data-testid="config-link" onClick={() => navigate(detailPath({ ...c, tenant: namespace }))}>{c.dataId}</Anchor></Table.Td>
                  <Table.Td>{c.group}</Table.Td>
                  <Table.Td>{c.type}</Table.Td>
                  <Table.Td>{c.appName}</Table.Td>
                  <Table.Td><Text size="xs" ff="monospace">{c.md5}</Text></Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Group justify="space-between">
            <Text size="sm" c="dimmed" data-testid="config-count">{page.totalCount} configs</Text>
            <Pagination total={page.pagesAvailable} value={pageNo} onChange={load} />
          </Group>
        </>
      )}
      {creating && <CreateConfig namespace={namespace} onClose={() => setCreating(false)} onCreated={(k) => navigate(detailPath(k))} />}
      {importing && <ImportZip namespace={namespace} onClose={() => { setImporting(false); load(1); }} />}
    </Stack>
  );
}

function CreateConfig(props: { namespace: string; onClose: () => void; onCreated: (k: { dataId: string; group: string; tenant: string }) => void }) {
  const [dataId, setDataId] = useState('');
  const [group, setGroup] = useState('DEFAULT_GROUP');
  const [type, setType] = useState('text');
  const [content, setContent] = useState('');
  const [desc, setDesc] = useState('');
  const [tags, setTags] = useState('');
  const [appName, setAppName] = useState('');
  const [error, setError] = useState<string | null>(null);

  const submit = async () => {
    setError(null);
    const key = { dataId, group, tenant: props.namespace };
    try {
      await publish({ ...key, content, type, desc, config_tags: tags, appName });
      props.onCreated(key);
    } catch (e) {
      setError(describe(e));
    }
  };

  return (
    <Modal opened onClose={props.onClose} title="Create config" size="xl">
      <Stack>
        {error && <Alert color="red" data-testid="create-error">{error}</Alert>}
        <Group grow>
          <TextInput label="Data ID" required data-testid="new-dataId" value={dataId} onChange={(e) => setDataId(e.currentTarget.value)} />
          <TextInput label="Group" required data-testid="new-group" value={group} onChange={(e) => setGroup(e.currentTarget.value)} />
          <Select label="Type" data-testid="new-type" data={[...TYPES]} value={type} onChange={(v) => setType(v ?? 'text')} allowDeselect={false} />
        </Group>
        <Group grow>
          <TextInput label="Tags" value={tags} onChange={(e) => setTags(e.currentTarget.value)} />
          <TextInput label="App" value={appName} onChange={(e) => setAppName(e.currentTarget.value)} />
        </Group>
        <Textarea label="Description" value={desc} onChange={(e) => setDesc(e.currentTarget.value)} autosize minRows={1} />
        <Text size="sm" fw={500}>Content</Text>
        <CodeEditor value={content} type={type} onChange={setContent} testId="new-content" />
        <Group justify="end">
          <Button variant="default" onClick={props.onClose}>Cancel</Button>
          <Button onClick={submit} disabled={!dataId || !group || !content} data-testid="new-publish">Publish</Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function ImportZip(props: { namespace: string; onClose: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [policy, setPolicy] = useState('ABORT');
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const submit = async () => {
    if (!file) return;
    setError(null);
    const body = new FormData();
    body.append('file', file);
    try {
      const res = await call(CONFIGS, { method: 'POST', query: { import: true, namespace: props.namespace, policy }, body });
      const r = (await res.json()) as { data: { succCount: number; skipCount: number } };
      setResult(`${r.data.succCount} imported, ${r.data.skipCount} skipped`);
    } catch (e) {
      setError(describe(e));
    }
  };

  return (
    <Modal opened onClose={props.onClose} title="Import a Nacos export">
      <Stack>
        {error && <Alert color="red">{error}</Alert>}
        {result && <Alert color="green">{result}</Alert>}
        <FileInput label="Zip" accept=".zip,application/zip" value={file} onChange={setFile} />
        <Select label="When a config exists" data={[{ value: 'ABORT', label: 'Abort (write nothing)' }, { value: 'SKIP', label: 'Skip it' }, { value: 'OVERWRITE', label: 'Overwrite it' }]} value={policy} onChange={(v) => setPolicy(v ?? 'ABORT')} allowDeselect={false} />
        <Group justify="end">
          <Button variant="default" onClick={props.onClose}>Close</Button>
          <Button onClick={submit} disabled={!file}>Import</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
