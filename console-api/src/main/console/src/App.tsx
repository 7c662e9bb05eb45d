import { useCallback, useEffect, useState } from 'react';
import { AppShell, Group, NavLink, Select, Text, Button, Title, Loader, Center } from '@mantine/core';
import { Navigate, Route, Routes, useLocation, useNavigate } from 'react-router-dom';
import { call, clearSession, setOnExpired, storedUser, storeSession, type SessionUser } from './api';
import { SessionContext } from './session';
import { Login } from './pages/Login';
import { Configs } from './pages/Configs';
import { ConfigDetail } from './pages/ConfigDetail';
import { Namespaces, useNamespaces } from './pages/Namespaces';
import { Services } from './pages/Services';
import { ServiceDetail } from './pages/ServiceDetail';
import { Cluster } from './pages/Cluster';
import { Users } from './pages/Users';

const NS_KEY = 'lodestar.namespace';

export function App() {
  const [user, setUser] = useState<SessionUser | null>(storedUser());
  const [probing, setProbing] = useState(user === null);
  const navigate = useNavigate();

  const logout = useCallback(() => {
    clearSession();
    setUser(null);
    navigate('/login');
  }, [navigate]);

  useEffect(() => setOnExpired(logout), [logout]);

  // With --auth off the API answers without a token: then there is nothing to log in to.
  useEffect(() => {
    if (user) return;
    call('/nacos/v1/console/namespaces')
      .then(() => {
        const anonymous = { username: 'anonymous', globalAdmin: true, authOn: false };
        storeSession(null, anonymous);
        setUser(anonymous);
      })
      .catch(() => {})
      .finally(() => setProbing(false));
  }, [user]);

  if (probing) {
    return (
      <Center h="100vh">
        <Loader />
      </Center>
    );
  }
  if (!user) {
    return (
      <Routes>
        <Route path="*" element={<Login onLogin={(u) => { setUser(u); navigate('/configs'); }} />} />
      </Routes>
    );
  }
  return <Shell user={user} logout={logout} />;
}

const NAV = [
  ['/configs', 'Configs'],
  ['/namespaces', 'Namespaces'],
  ['/services', 'Services'],
  ['/cluster', 'Cluster'],
  ['/users', 'Users & roles'],
] as const;

function Shell({ user, logout }: { user: SessionUser; logout: () => void }) {
  const [namespace, setNs] = useState(sessionStorage.getItem(NS_KEY) ?? '');
  const setNamespace = (ns: string) => {
    sessionStorage.setItem(NS_KEY, ns);
    setNs(ns);
  };
  const location = useLocation();
  const navigate = useNavigate();
  const { namespaces, reload } = useNamespaces();

  return (
    <SessionContext.Provider value={{ user, namespace, setNamespace, logout }}>
      <AppShell header={{ height: 52 }} navbar={{ width: 190, breakpoint: 0 }} padding="md">
        <AppShell.Header>
          <Group h="100%" px="md" justify="space-between">
            <Title order={4}>Lodestar</Title>
            <Group>
              <Select
                data-testid="namespace-select"
                aria-label="Namespace"
                size="xs"
                w={220}
                allowDeselect={false}
                value={namespace}
                onDropdownOpen={reload}
                data={namespaces.map((n) => ({ value: n.namespace, label: n.namespaceShowName || n.namespace || 'public' }))}
                onChange={(v) => setNamespace(v ?? '')}
              />
              <Text size="sm" data-testid="whoami">
                {user.username}
                {user.authOn && !user.globalAdmin ? '' : user.authOn ? ' (admin)' : ' (auth off)'}
              </Text>
              {user.authOn && (
                <Button size="xs" variant="default" onClick={logout}>
                  Log out
                </Button>
              )}
            </Group>
          </Group>
        </AppShell.Header>
        <AppShell.Navbar p="xs">
          {NAV.map(([path, label]) => (
            <NavLink
              key={path}
              label={label}
              data-testid={'nav' + path.replace('/', '-')}
              active={location.pathname.startsWith(path)}
              onClick={() => navigate(path)}
            />
          ))}
        </AppShell.Navbar>
        <AppShell.Main>
          <Routes>
            <Route path="/configs" element={<Configs />} />
            <Route path="/configs/detail" element={<ConfigDetail />} />
            <Route path="/namespaces" element={<Namespaces onChanged={reload} />} />
            <Route path="/services" element={<Services />} />
            <Route path="/services/detail" element={<ServiceDetail />} />
            <Route path="/cluster" element={<Cluster />} />
            <Route path="/users" element={<Users />} />
            <Route path="*" element={<Navigate to="/configs" replace />} />
          </Routes>
        </AppShell.Main>
      </AppShell>
    </SessionContext.Provider>
  );
}
