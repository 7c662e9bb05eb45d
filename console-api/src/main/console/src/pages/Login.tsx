import { useState } from 'react';
import { Alert, Button, Center, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { ApiError, storeSession, type SessionUser } from '../api';

const LOGIN = '/nacos/v1/auth/users/login';

export function Login({ onLogin }: { onLogin: (u: SessionUser) => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const res = await fetch(LOGIN, { method: 'POST', body: new URLSearchParams({ username, password }) });
      if (!res.ok) throw new ApiError(res.status, (await res.text()).trim());
      const body = (await res.json()) as { accessToken: string; globalAdmin: boolean; username: string };
      const user = { username: body.username ?? username, globalAdmin: !!body.globalAdmin, authOn: true };
      storeSession(body.accessToken, user);
      onLogin(user);
    } catch (err) {
      setError(err instanceof ApiError && (err.status === 401 || err.status === 403) ? 'Wrong user name or password.' : `Login failed: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Center h="100vh" bg="gray.0">
      <Paper withBorder shadow="sm" p="xl" w={360}>
        <form onSubmit={submit}>
          <Stack>
            <Title order={3}>Lodestar console</Title>
            {error && (
              <Alert color="red" data-testid="login-error">
                {error}
              </Alert>
            )}
            <TextInput label="User" name="username" data-testid="login-user" value={username} onChange={(e) => setUsername(e.currentTarget.value)} required autoFocus />
            <PasswordInput label="Password" name="password" data-testid="login-password" value={password} onChange={(e) => setPassword(e.currentTarget.value)} required />
            <Button type="submit" loading={busy} data-testid="login-submit">
              Log in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
