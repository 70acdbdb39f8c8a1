import { Anchor, Button, Group, Select, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { ModelSelect } from './model-select.tsx';
import { RequestResult } from './request-result.tsx';
import { usePlaygroundCall } from './use-playground-call.ts';

/** The reader: a URL read into Markdown. */
export function ReaderPlayground() {
  const [url, setUrl] = useState('');
  const call = usePlaygroundCall<{ reader_result: { title: string; content: string } }>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void call.run('/paas/v4/reader', { url });
  };
  return (
    <Stack>
      <form onSubmit={submit} aria-label="Reader request">
        <Group align="end" grow>
          <TextInput label="URL" type="url" value={url} onChange={(event) => setUrl(event.currentTarget.value)} required />
          <Button type="submit" loading={call.busy}>
            Read
          </Button>
        </Group>
      </form>
      <RequestResult error={call.error}>
        {call.answer !== undefined && (
          <>
            <Title order={4}>{call.answer.reader_result.title}</Title>
            <Text style={{ whiteSpace: 'pre-wrap' }} data-testid="reader-content">
              {call.answer.reader_result.content}
            </Text>
          </>
        )}
      </RequestResult>
    </Stack>
  );
}

/** Web search: results with their links. */
export function WebSearchPlayground() {
  const [engine, setEngine] = useState('search-prime');
  const [query, setQuery] = useState('');
  const call = usePlaygroundCall<{ search_result: { title: string; link: string; content: string }[] }>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void call.run('/paas/v4/web_search', { search_engine: engine, search_query: query });
  };
  return (
    <Stack>
      <form onSubmit={submit} aria-label="Web search request">
        <Group align="end" grow>
          <ModelSelect label="Search engine" value={engine} onChange={setEngine} />
          <TextInput label="Query" value={query} onChange={(event) => setQuery(event.currentTarget.value)} required />
          <Button type="submit" loading={call.busy}>
            Search
          </Button>
        </Group>
      </form>
      <RequestResult error={call.error}>
        {call.answer?.search_result.map((result) => (
          <Stack gap={0} key={result.link}>
            <Anchor href={result.link} target="_blank" rel="noreferrer">
              {result.title}
            </Anchor>
            <Text size="sm">{result.content}</Text>
          </Stack>
        ))}
        {call.answer !== undefined && call.answer.search_result.length === 0 && <Text c="dimmed">No results.</Text>}
      </RequestResult>
    </Stack>
  );
}

/** An agent message's content: a string, or a part of which the text is what a person reads. */
function contentText(content: { text?: string } | string): string {
  return typeof content === 'string' ? content : (content.text ?? '');
}

/** Translation through the general_translation agent: the translated text as the agent answers it. */
export function TranslationPlayground() {
  const [text, setText] = useState('');
  const [target, setTarget] = useState<string>('en');
  const call = usePlaygroundCall<{ choices: { messages: { content: { text?: string } | string }[] }[] }>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void call.run('/v1/agents', { agent_id: 'general_translation', messages: [{ role: 'user', content: text }], custom_variables: { target_lang: target } });
  };
  return (
    <Stack>
      <form onSubmit={submit} aria-label="Translation request">
        <Stack>
          <Textarea label="Text" value={text} onChange={(event) => setText(event.currentTarget.value)} required autosize minRows={2} />
          <Group align="end">
            <Select
              label="Into"
              data={['en', 'zh-CN', 'ja', 'ko', 'fr', 'de', 'es']}
              value={target}
              onChange={(value) => setTarget(value ?? 'en')}
              allowDeselect={false}
            />
            <Button type="submit" loading={call.busy}>
              Translate
            </Button>
          </Group>
        </Stack>
      </form>
      <RequestResult error={call.error}>
        {call.answer !== undefined && (
          <Text style={{ whiteSpace: 'pre-wrap' }} data-testid="translation">
            {call.answer.choices.flatMap((choice) => choice.messages.map((message) => contentText(message.content))).join('\n')}
          </Text>
        )}
      </RequestResult>
    </Stack>
  );
}
