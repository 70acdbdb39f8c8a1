import { Stack, Tabs, Title } from '@mantine/core';
import type { ComponentType } from 'react';
import { ChatPlayground } from './chat-playground.tsx';
import { ImagePlayground, TranscriptionPlayground } from './media-playgrounds.tsx';
import { OcrPlayground } from './ocr-playground.tsx';
import { ReaderPlayground, TranslationPlayground, WebSearchPlayground } from './tool-playgrounds.tsx';

const tools: readonly { value: string; label: string; Panel: ComponentType }[] = [
  { value: 'chat', label: 'Chat', Panel: ChatPlayground },
  { value: 'images', label: 'Images', Panel: ImagePlayground },
  { value: 'ocr', label: 'OCR', Panel: OcrPlayground },
  { value: 'reader', label: 'Reader', Panel: ReaderPlayground },
  { value: 'search', label: 'Web search', Panel: WebSearchPlayground },
  { value: 'transcription', label: 'Transcription', Panel: TranscriptionPlayground },
  { value: 'translation', label: 'Translation', Panel: TranslationPlayground },
];

/** Try the API with the signed-in key: every call is the ordinary endpoint, under the key's policy. */
export function PlaygroundPage() {
  return (
    <Stack>
      <Title order={2}>Playground</Title>
      <Tabs defaultValue="chat" keepMounted={false}>
        <Tabs.List>
          {tools.map((tool) => (
            <Tabs.Tab key={tool.value} value={tool.value}>
              {tool.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {tools.map(({ value, Panel }) => (
          <Tabs.Panel key={value} value={value} pt="md">
            <Panel />
          </Tabs.Panel>
        ))}
      </Tabs>
    </Stack>
  );
}
