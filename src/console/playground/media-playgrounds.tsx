import { Button, FileInput, Group, Image, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { ModelSelect } from './model-select.tsx';
import { RequestResult } from './request-result.tsx';
import { usePlaygroundCall } from './use-playground-call.ts';

/** Image generation (the synchronous endpoint): the images shown as they come back. */
export function ImagePlayground() {
  const [model, setModel] = useState('');
  const [prompt, setPrompt] = useState('');
  const call = usePlaygroundCall<{ data: { url: string }[] }>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void call.run('/paas/v4/images/generations', { model, prompt });
  };
  return (
    <Stack>
      <form onSubmit={submit} aria-label="Image request">
        <Group align="end" grow>
          <ModelSelect value={model} onChange={setModel} />
          <TextInput label="Prompt" value={prompt} onChange={(event) => setPrompt(event.currentTarget.value)} required />
          <Button type="submit" loading={call.busy}>
            Generate
          </Button>
        </Group>
      </form>
      <RequestResult error={call.error}>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          {call.answer?.data.map((image) => (
            <Image key={image.url} src={image.url} alt={`Generated: ${prompt}`} radius="sm" />
          ))}
        </SimpleGrid>
      </RequestResult>
    </Stack>
  );
}

/** Transcription of an uploaded audio file (multipart, as the API takes it). */
export function TranscriptionPlayground() {
  const [model, setModel] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const call = usePlaygroundCall<{ text: string }>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (file === null) return;
    const form = new FormData();
    form.set('model', model);
    form.set('file', file);
    void call.run('/paas/v4/audio/transcriptions', form);
  };
  return (
    <Stack>
      <form onSubmit={submit} aria-label="Transcription request">
        <Group align="end" grow>
          <ModelSelect value={model} onChange={setModel} />
          <FileInput label="Audio file" accept="audio/*" value={file} onChange={setFile} clearable />
          <Button type="submit" loading={call.busy} disabled={file === null}>
            Transcribe
          </Button>
        </Group>
      </form>
      <RequestResult error={call.error}>{call.answer !== undefined && <Text style={{ whiteSpace: 'pre-wrap' }}>{call.answer.text}</Text>}</RequestResult>
    </Stack>
  );
}
