import { Alert, Badge, Button, Code, Group, NumberInput, Paper, Stack, Switch, Text, Textarea } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { countText } from '../api/count-text.ts';
import { useSession } from '../api/session.tsx';
import { emptyProgress, streamChat, type ChatProgress } from './chat-stream.ts';
import { curlCommand } from './curl-command.ts';
import { ModelSelect } from './model-select.tsx';

const chatPath = '/paas/v4/chat/completions';

/** Chat with streaming: reasoning, text and tool calls are shown as their events arrive. */
export function ChatPlayground() {
  const { key } = useSession();
  const queryClient = useQueryClient();
  const [model, setModel] = useState('');
  const [system, setSystem] = useState('');
  const [message, setMessage] = useState('');
  const [temperature, setTemperature] = useState<number | string>('');
  const [maxTokens, setMaxTokens] = useState<number | string>('');
  const [thinking, setThinking] = useState(true);
  const [tools, setTools] = useState('');
  const [progress, setProgress] = useState<ChatProgress>(emptyProgress);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const abort = useRef<AbortController | undefined>(undefined);

  const body = (): object => ({
    model,
    messages: [...(system === '' ? [] : [{ role: 'system', content: system }]), { role: 'user', content: message }],
    ...(temperature === '' ? {} : { temperature: Number(temperature) }),
    ...(maxTokens === '' ? {} : { max_tokens: Number(maxTokens) }),
    thinking: { type: thinking ? 'enabled' : 'disabled' },
    ...(tools.trim() === '' ? {} : { tools: JSON.parse(tools) as unknown, tool_stream: true }),
    stream: true,
  });
  const curl = (() => {
    try {
      return curlCommand(chatPath, body());
    } catch {
      return 'Tools: not JSON yet.';
    }
  })();

  const send = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    setProgress(emptyProgress);
    setBusy(true);
    abort.current = new AbortController();
    try {
      await streamChat(key, chatPath, body(), setProgress, abort.current.signal);
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(false);
      // Usage and spend changed: the pages that show them read again.
      await queryClient.invalidateQueries({ queryKey: [key] });
    }
  };

  return (
    <Stack>
      <form onSubmit={send} aria-label="Chat request">
        <Stack>
          <Group grow align="end">
            <ModelSelect value={model} onChange={setModel} />
            <NumberInput label="temperature" value={temperature} onChange={setTemperature} min={0} max={1} step={0.1} decimalScale={2} />
            <NumberInput label="max_tokens" value={maxTokens} onChange={setMaxTokens} min={1} allowDecimal={false} />
          </Group>
          <Switch label="Thinking (reasoning)" checked={thinking} onChange={(event) => setThinking(event.currentTarget.checked)} />
          <Textarea label="System message" value={system} onChange={(event) => setSystem(event.currentTarget.value)} autosize minRows={1} />
          <Textarea label="Message" value={message} onChange={(event) => setMessage(event.currentTarget.value)} autosize minRows={2} required />
          <Textarea
            label="Tools (JSON array, as the API takes them)"
            value={tools}
            onChange={(event) => setTools(event.currentTarget.value)}
            autosize
            minRows={1}
          />
          <Group>
            <Button type="submit" loading={busy}>
              Send
            </Button>
            <Button variant="default" onClick={() => abort.current?.abort()} disabled={!busy}>
              Stop
            </Button>
          </Group>
        </Stack>
      </form>
      {error !== undefined && (
        <Alert color="red" role="alert" title="Refused">
          {error}
        </Alert>
      )}
      <section aria-label="Answer" aria-live="polite">
        <Stack gap="xs">
          {progress.reasoning !== '' && (
            <Paper withBorder p="sm" bg="gray.0">
              <Text size="xs" c="dimmed">
                Reasoning
              </Text>
              <Text size="sm" style={{ whiteSpace: 'pre-wrap' }} data-testid="reasoning">
                {progress.reasoning}
              </Text>
            </Paper>
          )}
          {progress.content !== '' && (
            <Paper withBorder p="sm">
              <Text style={{ whiteSpace: 'pre-wrap' }} data-testid="answer">
                {progress.content}
              </Text>
            </Paper>
          )}
          {progress.toolCalls.map((call) => (
            <Paper withBorder p="sm" key={call.id} data-testid="tool-call">
              <Badge>tool call</Badge> <Code>{call.name}</Code>
              <Code block mt="xs">
                {call.arguments}
              </Code>
            </Paper>
          ))}
          {progress.finishReason !== undefined && (
            <Text size="xs" c="dimmed" data-testid="finish">
              finish_reason {progress.finishReason}
              {progress.usage !== undefined &&
                `, ${countText(progress.usage.prompt_tokens, 'prompt token', 'prompt tokens')} + ${countText(progress.usage.completion_tokens, 'completion token', 'completion tokens')}`}
            </Text>
          )}
        </Stack>
      </section>
      <Text size="sm" fw={500}>
        The request as curl
      </Text>
      <Code block data-testid="curl">
        {curl}
      </Code>
    </Stack>
  );
}
