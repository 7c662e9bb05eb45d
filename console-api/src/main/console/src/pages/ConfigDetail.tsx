import { useCallback, useEffect, useState } from 'react';
import { Alert, Badge, Button, Group, Modal, Select, Stack, Table, Tabs, Text, TextInput, Title } from '@mantine/core';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { ApiError, canWrite, describe, getJson } from '../api';
import { LISTENERS, TYPES, beta, detail, history, historyEntry, promoteBeta, publish, publishBeta, remove, stopBeta, writeProbe, type Beta, type ConfigAll, type ConfigKey, type HistoryItem, keyParams } from '../config';
import { CodeEditor, DiffView } from '../editor';
import { watchConfig } from '../push';
import { Delivery } from './Delivery';

export function ConfigDetail() {
  const [params] = useSearchParams();
  const key: ConfigKey = { dataId: params.get('dataId') ?? '', group: params.get('group') ?? 'DEFAULT_GROUP', tenant: params.get('tenant') ?? '' };
  const navigate = useNavigate();
  const [config, setConfig] = useState<ConfigAll | null>(null);
  const [missing, setMissing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [writable, setWritable] = useState(false);
  const [live, setLive] = useState(false);
  const [tab, setTab] = useState<string | null>('content');
  const [historyVersion, setHistoryVersion] = useState(0);

  const reload = useCallback(() => {
    detail(key)
      .then((c) => {
        setConfig(c);
        setMissing(false);
      })
      .catch((e) => {
        if (e instanceof ApiError && e.status === 404) {
          setMissing(true);
          setConfig(null);
        } else setError(describe(e));
      });
    setHistoryVersion((v) => v + 1);
  }, [key.dataId, key.group, key.tenant]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    reload();
    canWrite(writeProbe(key)).then(setWritable);
    // the page follows the config: a change pushed by the server is fetched again
    return watchConfig(key, () => reload(), setLive);
  }, [reload]); // eslint-disable-line react-hooks/exhaustive-deps

  return (
    <Stack>
      <Group justify="space-between">
        <Group>
          <Title order={3} data-testid="config-title">{key.dataId}</Title>
          <Badge variant="light">{key.group}</Badge>
          <Badge variant="outline">{key.tenant || 'public'}</Badge>
          <Badge color={live ? 'green' : 'gray'} data-testid="live-badge">{live ? 'live' : 'not live'}</Badge>
        </Group>
        <Button variant="default" onClick={() => navigate('/configs')}>Back</Button>
      </Group>
      {error && <Alert color="red" withCloseButton onClose={() => setError(null)} data-testid="detail-error">{error}</Alert>}
      {missing && <Alert color="yellow" data-testid="config-missing">This config does not exist (deleted?).</Alert>}
      <Tabs value={tab} onChange={setTab} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="content" data-testid="tab-content">Content</Tabs.Tab>
          <Tabs.Tab value="history" data-testid="tab-history">History</Tabs.Tab>
          <Tabs.Tab value="listeners" data-testid="tab-listeners">Listeners</Tabs.Tab>
          <Tabs.Tab value="delivery" data-testid="tab-delivery">Delivery</Tabs.Tab>
          <Tabs.Tab value="beta" data-testid="tab-beta">Gray release</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="content" pt="md">
          {config && <Content config={config} writable={writable} onChanged={reload} onDeleted={() => navigate('/configs')} />}
        </Tabs.Panel>
        <Tabs.Panel value="history" pt="md">
          <History configKey={key} current={config} writable={writable} version={historyVersion} onChanged={reload} />
        </Tabs.Panel>
        <Tabs.Panel value="listeners" pt="md">
          <Listeners configKey={key} currentMd5={config?.md5} />
        </Tabs.Panel>
        <Tabs.Panel value="delivery" pt="md">
          <Delivery configKey={key} currentMd5={config?.md5} />
        </Tabs.Panel>
        <Tabs.Panel value="beta" pt="md">
          {config && <GrayRelease config={config} writable={writable} onChanged={reload} />}
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

function Content(props: { config: ConfigAll; writable: boolean; onChanged: () => void; onDeleted: () => void }) {
  const c = props.config;
  const [draft, setDraft] = useState<string | null>(null);
  const [type, setType] = useState(c.type || 'text');
  const [reviewing, setReviewing] = useState(false);
  const [conflict, setConflict] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  // the md5 the draft was started from: the publish is a compare-and-set on it
  const [baseMd5, setBaseMd5] = useState(c.md5);
  const [baseContent, setBaseContent] = useState(c.content);

  // after a refused publish, the draft is kept and compared with the version that won instead
  const [rebase, setRebase] = useState(false);

  useEffect(() => {
    if (draft === null || rebase) {
      setBaseMd5(c.md5);
      setBaseContent(c.content);
      if (draft === null) setType(c.type || 'text');
      setRebase(false);
    }
  }, [c, draft]); // eslint-disable-line react-hooks/exhaustive-deps

  const key = { dataId: c.dataId, group: c.group, tenant: c.tenant ?? '' };
  const doPublish = async () => {
    setError(null);
    try {
      await publish({ ...key, content: draft ?? c.content, type, desc: c.desc, config_tags: c.configTags, appName: c.appName, casMd5: baseMd5 });
      setDraft(null);
      setReviewing(false);
      setConflict(null);
      props.onChanged();
    } catch (e) {
      setReviewing(false);
      if (e instanceof ApiError && e.status === 409) {
        setConflict('Someone else changed this config since you started editing: nothing was written. Your edit is kept: review it against their version before publishing again.');
        setRebase(true);
        props.onChanged();
      } else setError(describe(e));
    }
  };

  const doDelete = async () => {
    try {
      await remove(key);
      props.onDeleted();
    } catch (e) {
      setError(describe(e));
      setConfirmDelete(false);
    }
  };

  return (
    <Stack>
      {conflict && <Alert color="orange" title="Not published" data-testid="cas-conflict" withCloseButton onClose={() => setConflict(null)}>{conflict}</Alert>}
      {error && <Alert color="red" data-testid="publish-error">{error}</Alert>}
      <Group justify="space-between">
        <Group gap="xs">
          <Text size="sm">MD5 <Text span ff="monospace" data-testid="config-md5">{c.md5}</Text></Text>
          {c.appName && <Badge variant="light">app {c.appName}</Badge>}
          {c.configTags && <Badge variant="light">tags {c.configTags}</Badge>}
        </Group>
        {props.writable && (
          <Group>
            {draft === null ? (
              <>
                <Button onClick={() => setDraft(c.content)} data-testid="edit-config">Edit</Button>
                <Button color="red" variant="light" onClick={() => setConfirmDelete(true)} data-testid="delete-config">Delete</Button>
              </>
            ) : (
              <>
                <Select size="xs" w={130} data={[...TYPES]} value={type} onChange={(v) => setType(v ?? 'text')} allowDeselect={false} aria-label="Type" />
                <Button variant="default" onClick={() => setDraft(null)}>Cancel</Button>
                <Button onClick={() => setReviewing(true)} disabled={draft === baseContent && type === (c.type || 'text')} data-testid="review-config">Review &amp; publish</Button>
              </>
            )}
          </Group>
        )}
      </Group>
      {c.desc && <Text size="sm" c="dimmed">{c.desc}</Text>}
      {draft === null ? (
        <CodeEditor value={c.content} type={c.type || 'text'} testId="config-content" />
      ) : (
        <>
          {c.md5 !== baseMd5 && <Alert color="orange" data-testid="stale-draft">The stored config changed while you edit; publishing will be refused.</Alert>}
          <CodeEditor value={draft} type={type} onChange={setDraft} testId="config-editor" />
        </>
      )}
      {reviewing && draft !== null && (
        <Modal opened onClose={() => setReviewing(false)} title="Publish these changes?" size="90%">
          <Stack>
            <Group grow><Text size="sm" fw={500}>Stored (md5 {baseMd5})</Text><Text size="sm" fw={500}>Yours</Text></Group>
            <DiffView a={baseContent} b={draft} type={type} testId="publish-diff" />
            <Group justify="end">
              <Button variant="default" onClick={() => setReviewing(false)}>Back to editing</Button>
              <Button onClick={doPublish} data-testid="confirm-publish">Publish</Button>
            </Group>
          </Stack>
        </Modal>
      )}
      {confirmDelete && (
        <Modal opened onClose={() => setConfirmDelete(false)} title="Delete this config?">
          <Stack>
            <Text>Delete <b>{c.dataId}</b> ({c.group})? Its history is kept.</Text>
            <Group justify="end">
              <Button variant="default" onClick={() => setConfirmDelete(false)}>Cancel</Button>
              <Button color="red" onClick={doDelete} data-testid="confirm-delete">Delete</Button>
            </Group>
          </Stack>
        </Modal>
      )}
    </Stack>
  );
}

const CURRENT = 'current';

/** History times come as epoch milliseconds (or already as text). */
function when(h: HistoryItem): string {
  const t = h.lastModifiedTime ?? h.createdTime ?? '';
  return /^\d+$/.test(String(t)) ? new Date(Number(t)).toLocaleString() : String(t);
}

function History(props: { configKey: ConfigKey; current: ConfigAll | null; writable: boolean; version: number; onChanged: () => void }) {
  const [items, setItems] = useState<HistoryItem[]>([]);
  const [left, setLeft] = useState<string | null>(null);
  const [right, setRight] = useState<string | null>(CURRENT);
  const [texts, setTexts] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const k = props.configKey;

  useEffect(() => {
    history(k, 1)
      .then((p) => {
        setItems(p.pageItems);
        if (p.pageItems.length > 0 && left === null) setLeft(String(p.pageItems[0].id));
      })
      .catch((e) => setError(describe(e)));
  }, [props.version]); // eslint-disable-line react-hooks/exhaustive-deps

  const text = useCallback(
    async (id: string): Promise<string> => {
      if (id === CURRENT) return props.current?.content ?? '';
      if (texts[id] !== undefined) return texts[id];
      const e = await historyEntry(k, id);
      const t = e.content ?? '';
      setTexts((m) => ({ ...m, [id]: t }));
      return t;
    },
    [texts, props.current], // eslint-disable-line react-hooks/exhaustive-deps
  );

  const [pair, setPair] = useState<[string, string] | null>(null);
  useEffect(() => {
    if (left && right) {
      Promise.all([text(left), text(right)]).then((p) => setPair(p as [string, string])).catch((e) => setError(describe(e)));
    }
  }, [left, right, props.current]); // eslint-disable-line react-hooks/exhaustive-deps

  const rollback = async (id: string) => {
    setError(null);
    try {
      const content = await text(id);
      const c = props.current;
      // republished as a compare-and-set on what is stored now: a concurrent edit is refused, never overwritten
      await publish({ ...k, content, type: c?.type || 'text', desc: c?.desc, config_tags: c?.configTags, appName: c?.appName, casMd5: c?.md5 });
      setNotice(`Rolled back to version ${id}.`);
      props.onChanged();
    } catch (e) {
      setError(e instanceof ApiError && e.status === 409 ? 'The config changed meanwhile: nothing was written. Look again, then roll back.' : describe(e));
    }
  };

  const options = [{ value: CURRENT, label: 'current (stored now)' }, ...items.map((h) => ({ value: String(h.id), label: `#${h.id} ${h.opType.trim()} ${when(h)}` }))];
  return (
    <Stack>
      {error && <Alert color="red" data-testid="history-error">{error}</Alert>}
      {notice && <Alert color="green" data-testid="rollback-done" withCloseButton onClose={() => setNotice(null)}>{notice}</Alert>}
      <Table striped data-testid="history-table">
        <Table.Thead>
          <Table.Tr><Table.Th>Version</Table.Th><Table.Th>Operation</Table.Th><Table.Th>By</Table.Th><Table.Th>From</Table.Th><Table.Th>When</Table.Th><Table.Th /></Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((h) => (
            <Table.Tr key={h.id} data-testid="history-row" data-version={h.id}>
              <Table.Td>{h.id}</Table.Td>
              <Table.Td>{h.opType.trim()}</Table.Td>
              <Table.Td>{h.srcUser}</Table.Td>
              <Table.Td>{h.srcIp}</Table.Td>
              <Table.Td>{when(h)}</Table.Td>
              <Table.Td>
                <Group gap="xs">
                  <Button size="compact-xs" variant="default" onClick={() => { setLeft(String(h.id)); setRight(CURRENT); }}>Diff with current</Button>
                  {props.writable && props.current && <Button size="compact-xs" variant="light" onClick={() => rollback(String(h.id))} data-testid="rollback">Roll back to this</Button>}
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {items.length > 0 && (
        <>
          <Group grow>
            <Select label="Left" data={options} value={left} onChange={setLeft} data-testid="diff-left" allowDeselect={false} />
            <Select label="Right" data={options} value={right} onChange={setRight} data-testid="diff-right" allowDeselect={false} />
          </Group>
          {pair && <DiffView a={pair[0]} b={pair[1]} type={props.current?.type || 'text'} testId="history-diff" />}
        </>
      )}
    </Stack>
  );
}

interface ListenerRow { clientAddress: string; protocol: string; md5: string | null; node: string }
interface ListenerNode { node: string; reachable: boolean; error?: string }

/**
 * Who listens to this config on every member (the node asked gathers them): a client holding an
 * md5 other than the stored one has not caught up, and a member that did not answer is named.
 */
function Listeners(props: { configKey: ConfigKey; currentMd5: string | undefined }) {
  const [rows, setRows] = useState<ListenerRow[] | null>(null);
  const [silent, setSilent] = useState<ListenerNode[]>([]);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    getJson<{ listeners: ListenerRow[]; nodes: ListenerNode[] }>(LISTENERS, keyParams(props.configKey))
      .then((r) => { setRows(r.listeners); setSilent(r.nodes.filter((n) => !n.reachable)); setError(null); })
      .catch((e) => setError(describe(e)));
  useEffect(() => { load(); }, [props.currentMd5]); // eslint-disable-line react-hooks/exhaustive-deps
  return (
    <Stack>
      {error && <Alert color="red">{error}</Alert>}
      {silent.map((n) => (
        <Alert key={n.node} color="yellow" data-testid="listeners-silent-member">
          Member {n.node} did not answer{n.error ? `: ${n.error}` : ''}; its listeners are not listed.
        </Alert>
      ))}
      <Group>
        <Text>Listeners on every member: <b data-testid="listeners-count">{rows?.length ?? '?'}</b></Text>
        <Button size="xs" variant="default" onClick={load} data-testid="listeners-refresh">Refresh</Button>
      </Group>
      <Table data-testid="listeners-table">
        <Table.Thead>
          <Table.Tr><Table.Th>Client</Table.Th><Table.Th>Protocol</Table.Th><Table.Th>MD5 it holds</Table.Th><Table.Th>Member</Table.Th></Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {(rows ?? []).map((l, i) => {
            const current = l.md5 != null && l.md5 === props.currentMd5;
            return (
              <Table.Tr key={i} data-testid="listener-row" data-protocol={l.protocol} data-current={String(current)}>
                <Table.Td>{l.clientAddress}</Table.Td>
                <Table.Td>{l.protocol}</Table.Td>
                <Table.Td>
                  {l.md5 ?? '(not told)'}{' '}
                  {l.md5 != null && <Badge color={current ? 'green' : 'red'} variant="light">{current ? 'current' : 'stale'}</Badge>}
                </Table.Td>
                <Table.Td>{l.node}</Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

function GrayRelease(props: { config: ConfigAll; writable: boolean; onChanged: () => void }) {
  const c = props.config;
  const key = { dataId: c.dataId, group: c.group, tenant: c.tenant ?? '' };
  const [current, setCurrent] = useState<Beta | null>(null);
  const [ips, setIps] = useState('');
  const [draft, setDraft] = useState(c.content);
  const [error, setError] = useState<string | null>(null);
  const load = () => beta(key).then((b) => { setCurrent(b); if (b) { setIps(b.betaIps); setDraft(b.content); } }).catch((e) => setError(describe(e)));
  useEffect(() => { load(); }, [c.md5]); // eslint-disable-line react-hooks/exhaustive-deps
  const act = (f: () => Promise<void>) => async () => {
    setError(null);
    try {
      await f();
      await load();
      props.onChanged();
    } catch (e) {
      setError(describe(e));
    }
  };
  return (
    <Stack>
      {error && <Alert color="red">{error}</Alert>}
      <Text size="sm">{current ? <>A gray release is served to <b>{current.betaIps}</b> (md5 {current.md5}).</> : 'No gray release: every client gets the stable config.'}</Text>
      {current && <DiffView a={c.content} b={current.content} type={c.type || 'text'} />}
      {props.writable && (
        <>
          <TextInput label="Client IPs (comma-separated)" value={ips} onChange={(e) => setIps(e.currentTarget.value)} />
          <CodeEditor value={draft} type={c.type || 'text'} onChange={setDraft} />
          <Group>
            <Button onClick={act(() => publishBeta({ ...key, content: draft, type: c.type || 'text', appName: c.appName }, ips))} disabled={!ips}>Publish to these IPs</Button>
            {current && <Button color="green" variant="light" onClick={act(() => promoteBeta(key))}>Promote to everyone</Button>}
            {current && <Button color="red" variant="light" onClick={act(() => stopBeta(key))}>Stop</Button>}
          </Group>
        </>
      )}
    </Stack>
  );
}
