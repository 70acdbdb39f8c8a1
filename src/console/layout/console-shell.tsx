import { AppShell, Badge, Burger, Button, Group, NavLink, Title } from '@mantine/core';
import { useDisclosure, useReducedMotion } from '@mantine/hooks';
import { NavLink as RouterLink, Outlet, useLocation } from 'react-router';
import { useSessionState } from '../api/session.tsx';
import { SignInPage } from '../pages/sign-in-page.tsx';

const pages = [
  { to: '/', label: 'Overview' },
  { to: '/keys', label: 'Keys', adminOnly: true },
  { to: '/usage', label: 'Usage & spend' },
  { to: '/tasks', label: 'Tasks' },
  { to: '/files', label: 'Files & knowledge' },
  { to: '/models', label: 'Models' },
  { to: '/playground', label: 'Playground' },
];

/** The frame of every page: navigation (a drawer behind a burger at phone width) and the signed-in key. */
export function ConsoleShell() {
  const { session, signOut } = useSessionState();
  const [opened, { toggle, close }] = useDisclosure(false);
  const location = useLocation();
  // The drawer slides only for those who have not asked their system for less motion.
  const reduceMotion = useReducedMotion();
  if (session === undefined) return <SignInPage />;
  return (
    <AppShell
      transitionDuration={reduceMotion ? 0 : 200}
      header={{ height: 56 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Title order={1} size="h4">
              model-platform
            </Title>
          </Group>
          <Group gap="xs" wrap="nowrap">
            <Badge variant="light" color={session.admin ? 'grape' : 'blue'} visibleFrom="xs">
              {session.admin ? 'admin' : 'key'} {session.keyId.slice(0, 8)}
            </Badge>
            <Button variant="default" size="xs" onClick={signOut}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label="Console pages">
        {pages
          .filter((page) => session.admin || page.adminOnly !== true)
          .map((page) => (
            <NavLink
              key={page.to}
              component={RouterLink}
              to={page.to}
              label={page.label}
              active={page.to === '/' ? location.pathname === '/' : location.pathname.startsWith(page.to)}
              onClick={close}
            />
          ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
