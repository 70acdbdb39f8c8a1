import { createBrowserRouter } from 'react-router';
import { ConsoleShell } from './layout/console-shell.tsx';
import { FilesPage } from './pages/files-page.tsx';
import { KeysPage } from './pages/keys-page.tsx';
import { ModelsPage } from './pages/models-page.tsx';
import { OverviewPage } from './pages/overview-page.tsx';
import { TasksPage } from './pages/tasks-page.tsx';
import { UsagePage } from './pages/usage-page.tsx';
import { PlaygroundPage } from './playground/playground-page.tsx';

/** The console's pages, under /console; the shell asks for a key first. */
export const consoleRouter = createBrowserRouter(
  [
    {
      path: '/',
      element: <ConsoleShell />,
      children: [
        { index: true, element: <OverviewPage /> },
        { path: 'keys', element: <KeysPage /> },
        { path: 'usage', element: <UsagePage /> },
        { path: 'tasks', element: <TasksPage /> },
        { path: 'files', element: <FilesPage /> },
        { path: 'models', element: <ModelsPage /> },
        { path: 'playground', element: <PlaygroundPage /> },
        { path: '*', element: <OverviewPage /> },
      ],
    },
  ],
  { basename: '/console' },
);
